/**
 * `bun run build` (also npm's `prepack`): turns the checkout into the files the npm package
 * ships.
 *
 *   dist/index.js             the plugin entry: one ESM file for OpenCode's Bun runtime, with
 *                             the runtime dependencies left as imports for the host to resolve
 *   dist/index.d.ts           the entry's declaration, emitted by tsc (the default export only)
 *   dist/cli.js               `auto-resume-toggle`: one self-contained file for Node 20+
 *   dist/options.schema.json  the options' JSON schema, exactly optionsJsonSchema()
 *
 * Everything is written to a staging folder first and swapped in at the end, so a failed
 * build leaves the previous dist/ alone. Tests and the demo load src/index.ts directly and do
 * not need any of this.
 */
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import type { BunPlugin } from "bun"
import pkg from "../package.json" with { type: "json" }
import { optionsJsonSchema } from "../src/options/index.ts"

const ROOT = path.resolve(import.meta.dir, "..")
const DIST = path.join(ROOT, "dist")
const ENTRY = path.join(ROOT, "src", "index.ts")
const CLI_SOURCE = path.join(ROOT, "src", "cli", "auto-resume-toggle.ts")

/** Everything package.json declares as a runtime dependency stays an import. */
const EXTERNAL = Object.keys(pkg.dependencies)

/** What a build leaves in dist/, and nothing else. */
export const OUTPUTS = ["cli.js", "index.d.ts", "index.js", "options.schema.json"] as const

function fail(message: string): never {
  throw new Error(`build: ${message}`)
}

/**
 * The source reads its version from package.json; the bundles only need the name and the
 * version, not the scripts and dev dependencies of the checkout.
 */
const packageJsonSlim: BunPlugin = {
  name: "package-json-slim",
  setup(builder) {
    const own = path.join(ROOT, "package.json")
    builder.onLoad({ filter: /[\\/]package\.json$/ }, (args) => {
      if (path.resolve(args.path) !== own) return undefined
      return { loader: "json", contents: JSON.stringify({ name: pkg.name, version: pkg.version }) }
    })
  },
}

function describeBuildMessage(message: unknown): string {
  const where = (message as { position?: { file?: string; line?: number; column?: number } } | null)?.position
  const at = where?.file ? ` (${path.relative(ROOT, where.file)}:${where.line ?? "?"}:${where.column ?? "?"})` : ""
  return `${String(message)}${at}`
}

async function bundle(config: Parameters<typeof Bun.build>[0], what: string): Promise<string> {
  let result: Awaited<ReturnType<typeof Bun.build>>
  try {
    result = await Bun.build(config)
  } catch (error) {
    // Bun.build throws an AggregateError whose message alone ("Bundle failed") says nothing.
    const details = error instanceof AggregateError ? error.errors.map(describeBuildMessage) : [String(error)]
    fail(`bundling ${what} failed:\n${details.join("\n")}`)
  }
  if (!result.success) fail(`bundling ${what} failed:\n${result.logs.map(String).join("\n")}`)
  const [output] = result.outputs
  if (!output || result.outputs.length !== 1) fail(`bundling ${what} produced ${result.outputs.length} files, expected 1`)
  return output.text()
}

async function writePlugin(outDir: string): Promise<void> {
  const code = await bundle(
    {
      entrypoints: [ENTRY],
      target: "bun",
      format: "esm",
      external: EXTERNAL,
      minify: false,
      sourcemap: "none",
      plugins: [packageJsonSlim],
    },
    "the plugin entry",
  )
  fs.writeFileSync(path.join(outDir, "index.js"), code)
}

/**
 * The CLI module's `main` returns an exit status and leaves the process alone; the shipped
 * file needs a few lines around it. They go in a throwaway entry file outside the checkout.
 * Everything the CLI imports is bundled in, so the file runs on plain Node 20 with no
 * dependency installed.
 */
async function writeCli(outDir: string): Promise<void> {
  if (!fs.existsSync(CLI_SOURCE)) fail(`${path.relative(ROOT, CLI_SOURCE)} is missing`)
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "auto-resume-build-"))
  try {
    const wrapper = path.join(scratch, "cli-entry.ts")
    fs.writeFileSync(
      wrapper,
      [
        `import { main } from ${JSON.stringify(CLI_SOURCE)}`,
        "try {",
        "  process.exitCode = await main(process.argv.slice(2))",
        "} catch (error) {",
        "  process.stderr.write(`auto-resume-toggle: ${error instanceof Error ? error.message : String(error)}\\n`)",
        "  process.exitCode = 1",
        "}",
        "",
      ].join("\n"),
    )
    const code = await bundle(
      { entrypoints: [wrapper], target: "node", format: "esm", minify: false, sourcemap: "none", plugins: [packageJsonSlim] },
      "the CLI",
    )
    const body = code.startsWith("#!") ? code.slice(code.indexOf("\n") + 1) : code
    const file = path.join(outDir, "cli.js")
    fs.writeFileSync(file, `#!/usr/bin/env node\n${body}`)
    fs.chmodSync(file, 0o755)
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}

/**
 * Emits the entry's declaration with tsc. Type errors are `bun run typecheck`'s business; only
 * syntax errors stop this step. The default export's type only names `@opencode-ai/plugin`
 * types, so the declaration must not import any other file of ours: if it ever would, the
 * build stops instead of shipping a dangling import.
 */
async function writeDeclaration(outDir: string): Promise<void> {
  const { default: ts } = await import("typescript")
  const virtualOut = path.join(ROOT, ".declarations") // never written: emit() hands us the text
  const options: import("typescript").CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts"],
    // No ambient Bun/Node types: nothing in the default export's type needs them, and leaving
    // them out makes this step several times faster.
    types: [],
    strict: true,
    skipLibCheck: true,
    resolveJsonModule: true,
    allowImportingTsExtensions: true,
    verbatimModuleSyntax: true,
    declaration: true,
    emitDeclarationOnly: true,
    rootDir: path.join(ROOT, "src"),
    outDir: virtualOut,
  }
  const program = ts.createProgram([ENTRY], options)
  const source = program.getSourceFile(ENTRY)
  if (!source) fail("tsc could not read src/index.ts")
  const problems = program.getSyntacticDiagnostics(source)
  if (problems.length > 0) {
    const text = ts.formatDiagnostics(problems, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => ROOT,
      getNewLine: () => "\n",
    })
    fail(`syntax errors:\n${text}`)
  }
  let declaration: string | undefined
  const wanted = path.join(virtualOut, "index.d.ts")
  const emitted = program.emit(source, (fileName, data) => {
    if (path.resolve(fileName) === wanted) declaration = data
  }, undefined, true)
  if (emitted.emitSkipped || declaration === undefined) fail("tsc emitted no declaration for src/index.ts")
  const local = [...declaration.matchAll(/from\s+["'](\.[^"']*)["']|import\(\s*["'](\.[^"']*)["']\s*\)/g)]
  if (local.length > 0) fail(`dist/index.d.ts would import files that are not shipped: ${local.map((m) => m[1] ?? m[2]).join(", ")}`)
  if (!/export default /.test(declaration)) fail("dist/index.d.ts has no default export")
  fs.writeFileSync(path.join(outDir, "index.d.ts"), declaration)
}

/** Writes `<outDir>/options.schema.json` (exactly optionsJsonSchema()) and returns its path. */
export function writeSchema(outDir: string): string {
  const file = path.join(outDir, "options.schema.json")
  fs.writeFileSync(file, `${JSON.stringify(optionsJsonSchema(), null, 2)}\n`)
  return file
}

/** Replaces `to` with the folder `from`; a plain rename unless they sit on different filesystems. */
function swapIn(from: string, to: string): void {
  fs.rmSync(to, { recursive: true, force: true })
  try {
    fs.renameSync(from, to)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error
    fs.cpSync(from, to, { recursive: true })
  }
}

/** Builds every output into `outDir` (default dist/), replacing what was there. */
export async function build(outDir: string = DIST): Promise<void> {
  // Staged outside the checkout, so even a killed build leaves no stray folder in it.
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), "auto-resume-dist-"))
  try {
    await writePlugin(staging)
    await writeCli(staging)
    await writeDeclaration(staging)
    writeSchema(staging)
    const present = fs.readdirSync(staging).sort()
    if (JSON.stringify(present) !== JSON.stringify([...OUTPUTS])) fail(`built ${present.join(", ")}; expected ${OUTPUTS.join(", ")}`)
    swapIn(staging, outDir)
  } finally {
    fs.rmSync(staging, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  try {
    await build()
    // stderr: npm runs this as prepack, and `npm pack --json` must keep a pure-JSON stdout.
    console.error(`built ${OUTPUTS.map((f) => `dist/${f}`).join(", ")}`)
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error))
    process.exit(1)
  }
}
