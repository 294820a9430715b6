/**
 * The package as users get it: packed by npm (which builds it through `prepack`), installed
 * from the tarball into a scratch project, and loaded from there by a real OpenCode 1.18.33,
 * which must then recover a stall exactly as it does with the TypeScript source.
 *
 * Offline by construction: npm packs a snapshot of this checkout (so the test never rewrites
 * the checkout's own dist/), and the install resolves every dependency from a registry on
 * 127.0.0.1 that only serves what this checkout's node_modules already holds
 * (harness/local-registry.ts). The scratch project uses `bun install`; npm would do the same
 * job from the same registry, only several times slower.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import fs from "node:fs"
import { isBuiltin } from "node:module"
import os from "node:os"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { optionsJsonSchema } from "../../src/options/index.ts"
import { hangAfter, startFakeProvider, text, type FakeProvider } from "./harness/fake-provider.ts"
import { startLocalRegistry, type LocalRegistry } from "./harness/local-registry.ts"
import { BUN, cleanEnv, packCheckout, packResult, REPO, run as runIn } from "./harness/pack.ts"
import { createSession, promptAsync, registerOpencodeCleanup, startOpencode, waitForIdle } from "./harness/opencode-host.ts"
import { SHORT_BUDGETS, autoResumeLog, eventually, lastAssistantText, pluginMessages, pluginPromptRequests, warmUp } from "./support.ts"

/** Everything `npm pack` may put in the tarball, and nothing else. */
const SHIPPED = [
  "CHANGELOG.md",
  "LICENSE",
  "README.md",
  "dist/cli.js",
  "dist/index.d.ts",
  "dist/index.js",
  "dist/options.schema.json",
  "package.json",
  "server.js",
]

let scratch: string
let env: Record<string, string>
let registry: LocalRegistry | undefined
let provider: FakeProvider | undefined
let packed: { tarball: string; files: string[] }
let dryRunFiles: string[]
let installed: string

registerOpencodeCleanup(
  afterAll,
  () => provider?.stop(),
  () => registry?.stop(),
  () => {
    if (scratch && process.env.E2E_KEEP_TEMP !== "1") fs.rmSync(scratch, { recursive: true, force: true })
  },
)

const run = (cmd: string[], cwd: string) => runIn(cmd, cwd, env)

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "oc-pack-"))
  const dirs = { checkout: "checkout", packs: "packs", project: "project", home: "home" }
  for (const [key, name] of Object.entries(dirs)) {
    const dir = path.join(scratch, name)
    fs.mkdirSync(dir)
    dirs[key as keyof typeof dirs] = dir
  }
  env = cleanEnv(dirs.home)

  // 1-2. A snapshot of the checkout, packed by npm, which runs prepack (the build) first.
  packed = await packCheckout(dirs, env)

  // 3. While npm lists the files again as a dry run, install the tarball into a scratch
  //    project; its dependencies come from the local registry.
  registry = await startLocalRegistry(REPO)
  const tarball = packed.tarball
  fs.writeFileSync(
    path.join(dirs.project, "package.json"),
    JSON.stringify({ name: "scratch-project", private: true, dependencies: { "opencode-auto-resume": tarball } }, null, 2),
  )
  const [dryRun] = await Promise.all([
    run(["npm", "pack", "--dry-run", "--json", "--ignore-scripts"], dirs.checkout),
    run(
      [BUN, "install", "--registry", registry.url, "--cache-dir", path.join(scratch, "bun-cache"), "--ignore-scripts", "--no-progress"],
      dirs.project,
    ),
  ])
  dryRunFiles = packResult(dryRun).files
  installed = path.join(dirs.project, "node_modules", "opencode-auto-resume")
}, 180_000)

describe("the published package", () => {
  test("npm pack lists exactly the built entry, its declaration, the CLI, the schema and the docs", () => {
    expect(dryRunFiles).toEqual(SHIPPED)
    expect(packed.files).toEqual(SHIPPED)
  })

  test("package.json points main, types, exports and bin at files that are in the package", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(installed, "package.json"), "utf8"))
    expect(pkg.type).toBe("module")
    const targets: string[] = [pkg.main, pkg.types, pkg.exports["."].import, pkg.exports["."].types, pkg.exports["./server"].import, ...Object.values(pkg.bin as Record<string, string>)]
    for (const target of targets) expect(fs.existsSync(path.join(installed, target))).toBe(true)
    expect(Object.keys(pkg.bin)).toEqual(["auto-resume-toggle"])
    // The entry keeps its runtime dependencies as imports, and every one is declared.
    const entry = fs.readFileSync(path.join(installed, pkg.main), "utf8")
    const imported = [...entry.matchAll(/^import .* from "([^"]+)";?$/gm)].map((m) => m[1]!).filter((s) => !isBuiltin(s))
    expect(imported).toContain("zod")
    for (const specifier of imported) expect(Object.keys(pkg.dependencies)).toContain(specifier)
  })

  test("the shipped JSON schema is optionsJsonSchema()", () => {
    const shipped = JSON.parse(fs.readFileSync(path.join(installed, "dist", "options.schema.json"), "utf8"))
    expect(shipped).toEqual(optionsJsonSchema())
  })

  test("the installed auto-resume-toggle runs on Node", async () => {
    const bin = path.join(scratch, "project", "node_modules", ".bin", "auto-resume-toggle")
    const help = await run(["node", bin, "--help"], scratch)
    expect(help).toContain("Usage: auto-resume-toggle")
    const child = Bun.spawn(["node", bin, "not-a-session", "sideways"], { env, stdout: "pipe", stderr: "pipe" })
    expect(await child.exited).toBe(2)
  })

  test(
    "OpenCode 1.18.33 loads the installed dist/index.js and it recovers a stalled stream",
    async () => {
      provider = await startFakeProvider()
      const pluginUrl = pathToFileURL(path.join(installed, "dist", "index.js")).href
      const host = await startOpencode({ providerUrl: provider.url, plugins: [[pluginUrl, SHORT_BUDGETS]], logLevel: "DEBUG" })

      // The startup line goes through client.app.log, so it may land just after the boot.
      const version = JSON.parse(fs.readFileSync(path.join(installed, "package.json"), "utf8")).version
      await host.waitForLog(/opencode-auto-resume \S+ host=v1/, 15_000).catch(() => {
        throw new Error(`the installed plugin never logged its startup line\n${host.logs().filter((l) => /plugin|error/i.test(l)).slice(-30).join("\n")}`)
      })
      const startup = autoResumeLog(host).filter((l) => l.startsWith("info opencode-auto-resume "))
      expect(startup).toHaveLength(1)
      expect(startup[0]).toContain(`opencode-auto-resume ${version} host=v1`)

      // A fresh server's first turn is slow; see warmUp for why the scenario must not be it.
      await warmUp(host, provider)
      const sessionID = await createSession(host)
      provider.enqueue(hangAfter("Let me look into"))
      provider.setFallback(text("Recovered: the answer is 42."))
      await promptAsync(host, sessionID, "what is the answer?")

      const recovered = await eventually(async () => (await lastAssistantText(host, sessionID)).includes("Recovered"), 30_000, 100)
      expect(recovered).toBe(true)
      expect(autoResumeLog(host).some((l) => l.includes(sessionID) && /stall detected phase=idle/.test(l))).toBe(true)
      expect(pluginPromptRequests(provider).length).toBeGreaterThanOrEqual(1)
      expect((await pluginMessages(host, sessionID)).length).toBeGreaterThanOrEqual(1)
      await waitForIdle(host, sessionID, 15_000, 0)
    },
    90_000,
  )
})
