/**
 * Loading on OpenCode 2.x: the packed package, found the way the 2.x host finds a plugin's
 * server entry (shared/host/v2-opencode-2.x.md, correction 1): `<package>/server`, then
 * `<package>`; for a local directory `<dir>/server`, then `<dir>/index`, with the runtime's
 * extension search; a miss falls through to the next candidate only on the listed error codes,
 * any other error stops the load.
 *
 * One build and one pack (npm pack runs the build through prepack) serve every case. The
 * tarball is unpacked into a scratch node_modules whose dependencies link to this checkout's,
 * and every candidate is resolved with Bun's resolver from the scratch project, then imported.
 * No OpenCode runs here, and nothing touches the network.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { cleanEnv, extractPackage, packCheckout } from "./harness/pack.ts"

/** Error codes on which the 2.x host tries its next candidate. */
const FALL_THROUGH = new Set(["ENOENT", "ENOTDIR", "MODULE_NOT_FOUND", "ERR_MODULE_NOT_FOUND", "ERR_PACKAGE_PATH_NOT_EXPORTED", "ERR_UNSUPPORTED_DIR_IMPORT"])

type Found = { candidate: string; file: string; misses: { candidate: string; code: string }[] }

/** A local path as the 2.x config writes one (relative to the config file's folder) or an absolute one. */
function isLocal(target: string): boolean {
  return target.startsWith("./") || target.startsWith("../") || path.isAbsolute(target)
}

/**
 * The server entry the 2.x host would load for `target`, resolved from `from`; undefined when
 * every candidate misses. Any other failure is rethrown, as the host does.
 */
function resolveServerEntry(target: string, from: string): Found | undefined {
  const candidates = isLocal(target)
    ? [path.join(path.resolve(from, target), "server"), path.join(path.resolve(from, target), "index")]
    : [`${target}/server`, target]
  const misses: Found["misses"] = []
  for (const candidate of candidates) {
    try {
      return { candidate, file: Bun.resolveSync(candidate, from), misses }
    } catch (error) {
      const code = String((error as { code?: unknown }).code)
      if (!FALL_THROUGH.has(code)) throw error
      misses.push({ candidate, code })
    }
  }
  return undefined
}

let scratch: string
let project: string
let installed: string
let shippedFiles: string[]

afterAll(() => {
  if (scratch && process.env.E2E_KEEP_TEMP !== "1") fs.rmSync(scratch, { recursive: true, force: true })
})

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "oc-resolve-"))
  const dirs = { checkout: path.join(scratch, "checkout"), packs: path.join(scratch, "packs"), home: path.join(scratch, "home") }
  for (const dir of Object.values(dirs)) fs.mkdirSync(dir)
  const env = cleanEnv(dirs.home)
  const packed = await packCheckout(dirs, env)
  shippedFiles = packed.files
  project = path.join(scratch, "project")
  fs.mkdirSync(project)
  fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "scratch-project", private: true }))
  const nodeModules = path.join(project, "node_modules")
  installed = path.join(nodeModules, "opencode-auto-resume")
  await extractPackage(packed.tarball, installed, nodeModules, env)

  // A copy of the package whose manifest has no "./server" export: the host must fall through.
  const noServerExport = path.join(nodeModules, "auto-resume-no-server-export")
  fs.cpSync(installed, noServerExport, { recursive: true })
  const manifest = JSON.parse(fs.readFileSync(path.join(noServerExport, "package.json"), "utf8"))
  delete manifest.exports["./server"]
  manifest.name = "auto-resume-no-server-export"
  fs.writeFileSync(path.join(noServerExport, "package.json"), JSON.stringify(manifest, null, 2))

  // A directory with the built plugin in it but neither server.* nor index.* at its root.
  const bare = path.join(project, "vendor", "bare")
  fs.mkdirSync(path.join(bare, "dist"), { recursive: true })
  fs.copyFileSync(path.join(installed, "dist", "index.js"), path.join(bare, "dist", "index.js"))
}, 180_000)

/** Imports what was found and checks it is the plugin both host lines load. */
async function expectPlugin(found: Found | undefined): Promise<void> {
  expect(found).toBeDefined()
  const mod = await import(pathToFileURL(found!.file).href)
  expect(Object.keys(mod)).toEqual(["default"])
  expect(mod.default.id).toBe("opencode-auto-resume")
  expect(typeof mod.default.setup).toBe("function")
  expect(typeof mod.default.server).toBe("function")
  // Not a 2.x ctx: setup stays inert rather than throwing.
  expect(mod.default.setup({})).toBeUndefined()
}

describe("the 2.x entry resolution, on the packed package", () => {
  test("the tarball ships the root server.js", () => {
    expect(shippedFiles).toContain("server.js")
  })

  test("package form: `opencode-auto-resume/server` resolves to the built entry at the first try", async () => {
    const found = resolveServerEntry("opencode-auto-resume", project)
    expect(found?.candidate).toBe("opencode-auto-resume/server")
    expect(found?.misses).toEqual([])
    expect(found?.file).toBe(path.join(installed, "dist", "index.js"))
    await expectPlugin(found)
  })

  test("directory form: `<dir>/server` finds server.js at the first try, by extension search", async () => {
    for (const target of [installed, `./${path.relative(project, installed)}`]) {
      const found = resolveServerEntry(target, project)
      expect(found?.candidate).toBe(path.join(installed, "server"))
      expect(found?.misses).toEqual([])
      expect(found?.file).toBe(path.join(installed, "server.js"))
      await expectPlugin(found)
    }
  })

  test("negative control: without the ./server export the package form only loads by falling through", async () => {
    const found = resolveServerEntry("auto-resume-no-server-export", project)
    expect(found?.misses.map((m) => m.candidate)).toEqual(["auto-resume-no-server-export/server"])
    expect(FALL_THROUGH.has(found!.misses[0]!.code)).toBe(true)
    expect(found?.candidate).toBe("auto-resume-no-server-export")
    await expectPlugin(found)
  })

  test("negative control: a directory with neither server.* nor index.* is a miss", () => {
    expect(resolveServerEntry("./vendor/bare", project)).toBeUndefined()
    // And so is a name nothing installed answers to.
    expect(resolveServerEntry("not-installed-anywhere", project)).toBeUndefined()
  })
})
