#!/usr/bin/env node
// auto-resume-toggle: see src/cli/auto-resume-toggle.ts.
//
// For running from a source checkout; the published package's `bin` is dist/cli.js (built by
// scripts/build.ts). Bun runs the TypeScript source directly; Node registers a tiny module
// loader that strips the types with the `typescript` dev dependency, or, without it, hands
// over to a built dist/cli.js.
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

const built = new URL("../dist/cli.js", import.meta.url)
const source = new URL("../src/cli/auto-resume-toggle.ts", import.meta.url)

// The loader, as a data: URL so that this shim stays one file. Only file:// URLs ending in .ts
// are touched; everything else goes to Node's own loader.
const loader = `
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
let ts
let base
export function initialize(data) { base = data.base }
export async function load(url, context, nextLoad) {
  if (!url.startsWith("file:") || !url.endsWith(".ts")) return nextLoad(url, context)
  ts ??= createRequire(base)("typescript")
  const text = await readFile(new URL(url), "utf8")
  const out = ts.transpileModule(text, {
    fileName: fileURLToPath(url),
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true, sourceMap: false },
  })
  return { format: "module", source: out.outputText, shortCircuit: true }
}
`

/** Returns the CLI module, or undefined when the built CLI was run instead (it runs itself). */
async function load() {
  if (typeof globalThis.Bun !== "undefined") return import(source.href)
  const { createRequire, register } = await import("node:module")
  let hasTypescript = true
  try {
    createRequire(import.meta.url).resolve("typescript")
  } catch {
    hasTypescript = false
  }
  if (!hasTypescript) {
    if (!existsSync(fileURLToPath(built))) throw new Error("this copy is neither built (no dist/cli.js) nor has the typescript package; build it, or run it with Bun")
    await import(built.href)
    return undefined
  }
  register(`data:text/javascript,${encodeURIComponent(loader)}`, { parentURL: import.meta.url, data: { base: import.meta.url } })
  return import(source.href)
}

try {
  const cli = await load()
  if (cli) process.exitCode = await cli.main(process.argv.slice(2))
} catch (error) {
  process.stderr.write(`auto-resume-toggle: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
}
