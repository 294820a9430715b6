/**
 * Packing this checkout the way a release is packed, for the tests that look at what users
 * get: `npm pack` (which builds through `prepack`) from a snapshot of the checkout, in a clean
 * environment, offline. Shared by package.e2e.test.ts and resolve.e2e.test.ts.
 *
 * Packing from a snapshot keeps the test from rewriting the checkout's own dist/; the
 * snapshot's node_modules is a link to this checkout's.
 */
import fs from "node:fs"
import os from "node:os"
import path from "node:path"

export const REPO = path.resolve(import.meta.dir, "..", "..", "..")
export const BUN = path.join(REPO, "node_modules", ".bin", "bun")

/** What npm packs from: package.json, its `files`, and what the build script reads. */
export const SNAPSHOT = ["package.json", "README.md", "LICENSE", "CHANGELOG.md", "server.js", "tsconfig.json", "scripts", "src"]

/** A clean environment: no npm_config_* from an outer `npm test`, no user .npmrc or bunfig. */
export function cleanEnv(home: string): Record<string, string> {
  return {
    PATH: `${path.dirname(BUN)}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    HOME: home,
    LANG: process.env.LANG ?? "C.UTF-8",
    TMPDIR: os.tmpdir(),
    NO_UPDATE_NOTIFIER: "1",
  }
}

/** Runs a command to completion; a non-zero exit throws with both streams. */
export async function run(cmd: string[], cwd: string, env: Record<string, string>): Promise<string> {
  const child = Bun.spawn(cmd, { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  if (code !== 0) throw new Error(`${cmd.join(" ")} exited ${code}\n--- stdout ---\n${stdout}\n--- stderr ---\n${stderr}`)
  return stdout
}

/** The tarball name and sorted file list from `npm pack --json`. */
export function packResult(stdout: string): { filename: string; files: string[] } {
  let parsed: Array<{ filename: string; files: Array<{ path: string }> }>
  try {
    parsed = JSON.parse(stdout)
  } catch {
    throw new Error(`npm pack --json printed something that is not JSON:\n${stdout}`)
  }
  const [entry] = parsed
  if (!entry) throw new Error("npm pack --json returned no package")
  return { filename: entry.filename, files: entry.files.map((f) => f.path).sort() }
}

/** Copies the snapshot of this checkout into `checkout` and links its node_modules. */
export function snapshotCheckout(checkout: string): void {
  for (const name of SNAPSHOT) fs.cpSync(path.join(REPO, name), path.join(checkout, name), { recursive: true })
  fs.symlinkSync(path.join(REPO, "node_modules"), path.join(checkout, "node_modules"), "dir")
}

export type Packed = { tarball: string; filename: string; files: string[] }

/** Snapshots the checkout into `checkout` and packs it (build included) into `packs`. */
export async function packCheckout(dirs: { checkout: string; packs: string }, env: Record<string, string>): Promise<Packed> {
  snapshotCheckout(dirs.checkout)
  const packed = packResult(await run(["npm", "pack", "--json", "--pack-destination", dirs.packs], dirs.checkout, env))
  return { ...packed, tarball: path.join(dirs.packs, packed.filename) }
}

/**
 * Unpacks a tarball into `dest` (npm tarballs hold one `package/` folder) and links each runtime
 * dependency into `nodeModules` from this checkout, which is what an install would put there.
 */
export async function extractPackage(tarball: string, dest: string, nodeModules: string, env: Record<string, string>): Promise<void> {
  fs.mkdirSync(dest, { recursive: true })
  await run(["tar", "-xzf", tarball, "-C", dest, "--strip-components=1"], dest, env)
  const manifest = JSON.parse(fs.readFileSync(path.join(dest, "package.json"), "utf8")) as { dependencies?: Record<string, string> }
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    const link = path.join(nodeModules, name)
    if (fs.existsSync(link)) continue
    fs.mkdirSync(path.dirname(link), { recursive: true })
    fs.symlinkSync(path.join(REPO, "node_modules", name), link, "dir")
  }
}
