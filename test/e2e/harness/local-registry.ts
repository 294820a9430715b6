/**
 * A throwaway npm registry on 127.0.0.1 that serves only what this checkout's node_modules
 * already holds, so a packed tarball can be installed with a plain `bun install` or `npm install`
 * (`--registry <url>`) and no other network.
 *
 * The client asks it for packuments (`GET /<name>`, scoped names as `@scope%2fname`) and for
 * tarballs. Every copy of a package found anywhere under node_modules (nested copies included,
 * so two versions of one name are both offered) becomes one version in the packument; its
 * tarball is made on first request from the installed folder (minus its own node_modules)
 * with `Bun.Archive`.
 * Names it does not hold get a 404, which installers skip for optional dependencies and fail on
 * for required ones: a package that declares a dependency this checkout does not have cannot
 * install by accident from somewhere else.
 */
import fs from "node:fs"
import path from "node:path"

export type LocalRegistry = {
  /** Base URL to pass as `--registry`. */
  url: string
  /** Names npm asked for that the registry could not serve (optional platform packages, mostly). */
  misses: string[]
  /** Names whose packument npm fetched. */
  served: string[]
  stop(): Promise<void>
}

type Copy = { dir: string; manifest: Record<string, any> }

/** Every package folder under `nodeModules`, nested node_modules included. */
function indexPackages(nodeModules: string, into: Map<string, Map<string, Copy>>, visited: Set<string>): void {
  let entries: fs.Dirent[]
  try {
    entries = fs.readdirSync(nodeModules, { withFileTypes: true })
  } catch {
    return
  }
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue
    const full = path.join(nodeModules, entry.name)
    if (entry.name.startsWith("@")) {
      for (const scoped of safeReaddir(full)) addPackage(path.join(full, scoped), into, visited)
    } else {
      addPackage(full, into, visited)
    }
  }
}

function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir).filter((n) => !n.startsWith("."))
  } catch {
    return []
  }
}

/** `visited` holds real paths already indexed: symlinked layouts can lead back to a folder. */
function addPackage(dir: string, into: Map<string, Map<string, Copy>>, visited: Set<string>): void {
  let real: string
  try {
    real = fs.realpathSync(dir)
  } catch {
    return
  }
  if (visited.has(real)) return
  visited.add(real)
  let manifest: Record<string, any>
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"))
  } catch {
    return
  }
  if (typeof manifest.name !== "string" || typeof manifest.version !== "string") return
  const versions = into.get(manifest.name) ?? new Map<string, Copy>()
  if (!versions.has(manifest.version)) versions.set(manifest.version, { dir, manifest })
  into.set(manifest.name, versions)
  indexPackages(path.join(dir, "node_modules"), into, visited)
}

/** The installed folder as `package/...` tar entries, without its own node_modules. */
function tarEntries(root: string): Record<string, Uint8Array> {
  // Read eagerly: lazily read file blobs (Bun.file) end up as empty entries in the archive.
  const out: Record<string, Uint8Array> = {}
  const walk = (dir: string, rel: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (rel === "" && entry.name === "node_modules") continue
      const full = path.join(dir, entry.name)
      const name = rel === "" ? entry.name : `${rel}/${entry.name}`
      if (entry.isDirectory()) walk(full, name)
      else if (entry.isFile()) out[`package/${name}`] = fs.readFileSync(full)
    }
  }
  walk(root, "")
  return out
}

/** Fields npm reads from a packument version; the rest of package.json is not needed to install. */
const MANIFEST_FIELDS = [
  "name",
  "version",
  "dependencies",
  "optionalDependencies",
  "peerDependencies",
  "peerDependenciesMeta",
  "bundleDependencies",
  "bundledDependencies",
  "bin",
  "directories",
  "engines",
  "os",
  "cpu",
  "libc",
  "deprecated",
] as const

function compareVersions(a: string, b: string): number {
  return Bun.semver.order(a, b)
}

/** Serves the packages under `<repoRoot>/node_modules` until stop(). */
export async function startLocalRegistry(repoRoot: string): Promise<LocalRegistry> {
  const packages = new Map<string, Map<string, Copy>>()
  const nodeModules = path.join(repoRoot, "node_modules")
  const visited = new Set<string>()
  indexPackages(nodeModules, packages, visited)
  // Bun's isolated linker keeps every package in node_modules/.bun/<name@version>/node_modules.
  for (const store of safeReaddir(path.join(nodeModules, ".bun"))) indexPackages(path.join(nodeModules, ".bun", store, "node_modules"), packages, visited)
  const tarballs = new Map<string, Promise<Uint8Array>>()
  const misses: string[] = []
  const served: string[] = []

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url)
      const pathname = decodeURIComponent(url.pathname)
      const tar = /^\/-\/tarball\/(.+)\/-\/([^/]+)\.tgz$/.exec(pathname)
      if (tar) {
        const [, name, version] = tar
        const copy = packages.get(name!)?.get(version!)
        if (!copy) return new Response("not here", { status: 404 })
        const key = `${name}@${version}`
        let bytes = tarballs.get(key)
        if (!bytes) {
          bytes = new Bun.Archive(tarEntries(copy.dir), { compress: "gzip", level: 1 }).bytes()
          tarballs.set(key, bytes)
        }
        return new Response(await bytes, { headers: { "content-type": "application/octet-stream" } })
      }
      const name = pathname.slice(1)
      const versions = packages.get(name)
      if (!versions || request.method !== "GET") {
        misses.push(name)
        return Response.json({ error: "not found" }, { status: 404 })
      }
      served.push(name)
      const body: Record<string, any> = { name, "dist-tags": {}, versions: {} }
      const ordered = [...versions.keys()].sort(compareVersions)
      body["dist-tags"].latest = ordered.at(-1)
      for (const version of ordered) {
        const { manifest } = versions.get(version)!
        const entry: Record<string, unknown> = {}
        for (const field of MANIFEST_FIELDS) if (manifest[field] !== undefined) entry[field] = manifest[field]
        entry.dist = { tarball: `${url.origin}/-/tarball/${encodeURIComponent(name)}/-/${version}.tgz` }
        body.versions[version] = entry
      }
      return Response.json(body)
    },
  })

  return {
    url: `http://127.0.0.1:${server.port}/`,
    misses,
    served,
    stop: async () => {
      await server.stop(true)
    },
  }
}
