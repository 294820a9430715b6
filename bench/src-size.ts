/**
 * How big src/ is and how it is cut up: the size figures of issue 16's closing note.
 *
 *   bun bench/src-size.ts [--dir src] [--json]
 *
 * Prints:
 * - lines of the .ts files under src/: all lines, lines not blank, and code lines (neither blank nor wholly
 *   comment: a line inside a block comment or starting with `//` does not count, a line with
 *   code and a trailing comment does), the number of .ts files (other files are listed apart);
 * - the five longest files;
 * - files per recovery path: each path of the README's "What it recovers" (its bold
 *   headings) gets the src files whose path (relative to src/, lower case) matches that path's
 *   keywords (PATHS below). The mapping is by file name only, stated here so that it can be
 *   judged and kept when files move: a file may serve several paths, and shared machinery
 *   (engine, ports, options, pause) belongs to none;
 * - the places in src/core that own a timer: calls of `time.schedule(` (as `ctx.time.schedule(`,
 *   `this.ctx.time.schedule(`, ...) outside comments, each with its file and line.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import path from "node:path"

const root = path.join(import.meta.dir, "..")
const dirArg = process.argv.indexOf("--dir")
const srcDir = path.resolve(root, dirArg >= 0 ? process.argv[dirArg + 1]! : "src")

/** README "What it recovers" paths -> keywords of the file paths that implement them. */
export const PATHS: { path: string; keywords: RegExp }[] = [
  { path: "A stream that goes silent (stall)", keywords: /stall|silent-stream|ladder|watchdog|host-run|abort-veto|prompts\/continue/ },
  { path: "OpenCode's own retry of a hung request (1.x)", keywords: /stream-timeouts/ },
  { path: "A tool that runs for a long time is not a stall", keywords: /watchdog|long-tool|tool-phase|wedge/ },
  {
    path: "A finished turn that is not really finished",
    keywords: /judge|idle|finished|nudges|todos\/|task-complete|done-claim|ready|stop-|celebration|hand-off|asks-user|action-intent|tool-call-text|thinking-tool|work-description|clause-tail/,
  },
  { path: "Loops", keywords: /loop|fingerprint|modules\/tools/ },
  { path: "Tools that do not exist", keywords: /unknown-tool|tool-names|modules\/tools/ },
  { path: "Provider failures", keywords: /failure|rate-limit|dead-stream|context-lock/ },
  { path: "Subagents", keywords: /subagent/ },
  { path: "Context saturation", keywords: /saturation/ },
  { path: "Fallback models (opt-in)", keywords: /fallback|outage|model-switch/ },
  { path: "Sessions missed by events (discovery)", keywords: /discovery/ },
]

function walk(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name)
      return statSync(full).isDirectory() ? walk(full) : [full]
    })
}

/** Lines that are neither blank nor only comment (a small scanner: block comments, `//` lines). */
export function codeLines(text: string): number {
  let inBlock = false
  let n = 0
  for (const raw of text.split("\n")) {
    let line = raw.trim()
    let code = false
    while (line.length > 0) {
      if (inBlock) {
        const end = line.indexOf("*/")
        if (end < 0) {
          line = ""
          break
        }
        inBlock = false
        line = line.slice(end + 2).trim()
        continue
      }
      if (line.startsWith("//")) break
      if (line.startsWith("/*")) {
        inBlock = true
        line = line.slice(2)
        continue
      }
      code = true
      // Code on this line; a block comment opened after it still has to be followed.
      const open = line.indexOf("/*")
      const close = open >= 0 ? line.indexOf("*/", open + 2) : -1
      if (open >= 0 && close < 0 && !/["'`]/.test(line.slice(0, open))) inBlock = true
      break
    }
    if (code) n++
  }
  return n
}

/** `time.schedule(` calls outside comments, as file:line. */
function timerOwners(file: string, rel: string, text: string): string[] {
  const out: string[] = []
  text.split("\n").forEach((line, i) => {
    const t = line.trim()
    if (t.startsWith("*") || t.startsWith("//") || t.startsWith("/*")) return
    if (/\btime\.schedule\(/.test(line)) out.push(`${rel}:${i + 1}`)
  })
  return out
}

const all = walk(srcDir)
const ts = all.filter((f) => f.endsWith(".ts"))
const other = all.filter((f) => !f.endsWith(".ts"))
const files = ts.map((f) => {
  const text = readFileSync(f, "utf8")
  const rel = path.relative(srcDir, f).split(path.sep).join("/")
  const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0)
  return { rel, lines, nonBlank: text.split("\n").filter((l) => l.trim() !== "").length, code: codeLines(text), text, file: f }
})
const total = files.reduce((a, f) => a + f.lines, 0)
const code = files.reduce((a, f) => a + f.code, 0)
const nonBlank = files.reduce((a, f) => a + f.nonBlank, 0)
const longest = [...files].sort((a, b) => b.lines - a.lines || a.rel.localeCompare(b.rel)).slice(0, 5)
const perPath = PATHS.map((p) => ({ path: p.path, keywords: String(p.keywords), files: files.filter((f) => p.keywords.test(f.rel.toLowerCase())) }))
const mapped = new Set(perPath.flatMap((p) => p.files.map((f) => f.rel)))
const timers = files.filter((f) => f.rel.startsWith("core/")).flatMap((f) => timerOwners(f.file, `src/${f.rel}`, f.text))
const folders = new Map<string, { files: number; lines: number }>()
for (const f of files) {
  const folder = f.rel.split("/").slice(0, -1).join("/") || "."
  const e = folders.get(folder) ?? { files: 0, lines: 0 }
  e.files++
  e.lines += f.lines
  folders.set(folder, e)
}

if (process.argv.includes("--json")) {
  console.log(
    JSON.stringify({
      lines: total,
      nonBlankLines: nonBlank,
      codeLines: code,
      files: files.length,
      otherFiles: other.map((f) => path.relative(root, f)),
      longest: longest.map((f) => ({ file: `src/${f.rel}`, lines: f.lines, code: f.code })),
      perPath: perPath.map((p) => ({ path: p.path, count: p.files.length, files: p.files.map((f) => `src/${f.rel}`) })),
      unmapped: files.length - mapped.size,
      coreTimerOwners: timers,
    }),
  )
} else {
  console.log(`src/ (${path.relative(root, srcDir) || "."}): ${files.length} .ts files, ${total.toLocaleString("en")} lines, ${nonBlank.toLocaleString("en")} not blank, ${code.toLocaleString("en")} code lines (not blank, not only comment)`)
  if (other.length > 0) console.log(`  other files (not counted): ${other.map((f) => path.relative(root, f)).join(", ")}`)
  console.log("\nby folder:")
  for (const [folder, e] of [...folders].sort((a, b) => a[0].localeCompare(b[0]))) console.log(`  ${`src/${folder}`.padEnd(20)} ${String(e.files).padStart(3)} files ${String(e.lines).padStart(6)} lines`)
  console.log("\nlongest files:")
  for (const f of longest) console.log(`  ${`src/${f.rel}`.padEnd(36)} ${String(f.lines).padStart(5)} lines ${String(f.code).padStart(5)} code`)
  console.log("\nfiles per recovery path (README \"What it recovers\"; file-name keywords, a file may serve several):")
  for (const p of perPath) {
    console.log(`  ${p.path}: ${p.files.length} files, ${p.files.reduce((a, f) => a + f.lines, 0)} lines   [${p.keywords}]`)
    console.log(`    ${p.files.map((f) => f.rel).join(", ") || "(none)"}`)
  }
  console.log(`  files on no recovery path (shared machinery): ${files.length - mapped.size}`)
  console.log(`\ntimer-owning places in src/core (\`time.schedule(\` calls): ${timers.length}`)
  for (const t of timers) console.log(`  ${t}`)
}
