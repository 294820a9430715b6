/**
 * Which src files one recovery visits: the files with code executed between the trigger and the
 * recovery's send, not module loading or setup.
 *
 *   bun bench/trace-files.ts                    # the two traces of issue 16
 *   bun bench/trace-files.ts --row stall --host v2 [--json]
 *
 * The two default traces are capability-matrix cells (test/matrix/table.ts), played through
 * the plugin's default export by the matrix's own host drivers on bun's fake timers:
 * - "1.x stall recovery": row `stall` on v1 (a live run falls silent; abort, then continue);
 * - "2.x tool-text recovery": row `tool-text` on v2 (a tool call printed as text; correction).
 *
 * Method (bench/trace/cell.ts plays the timelines): each cell runs in its own
 * `bun test --coverage --coverage-reporter=lcov` process, three times: twice the setup-only
 * timeline (the steps before the row's trigger, start-up settled) and once setup + recovery
 * (the trigger and what follows, until the first send). A src file counts as visited when
 * any of its lines ran more often in the recovery run than in the setup run (bun's lcov gives
 * per-line execution counts, `DA:line,count`; it has no per-function counts). The timeline is
 * deterministic on fake time, so the setup part runs the same in both; the two setup runs
 * show whether that holds: a file whose counts differ between them is reported as noise.
 * Nothing here names a src file: files are whatever the lcov lists under src/.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import os from "node:os"
import path from "node:path"

const root = path.join(import.meta.dir, "..")
const bun = process.execPath

type Counts = Map<string, Map<number, number>>
type Grown = { file: string; lines: number; hits: number }
type Trace = { label: string; row: string; host: string; files: Grown[]; control: Grown[]; noise: string[]; acts: unknown[]; windowMs: number }

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1] : undefined
}

/** Per src file, per line, how often it ran (lcov `SF:` / `DA:line,count`). */
export function parseLcov(text: string): Counts {
  const out: Counts = new Map()
  let lines: Map<number, number> | undefined
  for (const raw of text.split("\n")) {
    const line = raw.trim()
    if (line.startsWith("SF:")) {
      const file = line.slice(3).replace(/\\/g, "/")
      lines = /^(\.\/)?src\//.test(file) ? new Map() : undefined
      if (lines) out.set(file.replace(/^\.\//, ""), lines)
    } else if (line.startsWith("DA:") && lines) {
      const [n, c] = line.slice(3).split(",")
      lines.set(Number(n), (lines.get(Number(n)) ?? 0) + Number(c))
    } else if (line === "end_of_record") lines = undefined
  }
  return out
}

/** Files where some line ran more often in `after` than in `before`, with how many lines and extra hits. */
export function grown(before: Counts, after: Counts): { file: string; lines: number; hits: number }[] {
  const out: { file: string; lines: number; hits: number }[] = []
  for (const [file, lines] of after) {
    const was = before.get(file)
    let n = 0
    let hits = 0
    for (const [line, count] of lines) {
      const d = count - (was?.get(line) ?? 0)
      if (d > 0) {
        n++
        hits += d
      }
    }
    if (n > 0) out.push({ file, lines: n, hits })
  }
  return out.sort((a, b) => a.file.localeCompare(b.file))
}

/** Files whose counts differ at all between two runs of the same timeline. */
function differing(a: Counts, b: Counts): string[] {
  const files = new Set([...a.keys(), ...b.keys()])
  return [...files].filter((f) => {
    const x = a.get(f) ?? new Map()
    const y = b.get(f) ?? new Map()
    for (const line of new Set([...x.keys(), ...y.keys()])) if ((x.get(line) ?? 0) !== (y.get(line) ?? 0)) return true
    return false
  }).sort()
}

function runCell(row: string, host: string, part: "setup" | "recovery" | "control", spanMs = 0): { counts: Counts; acts: unknown[]; windowMs: number } {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "trace-files-"))
  try {
    const covDir = path.join(tmp, "coverage")
    const result = path.join(tmp, "result.json")
    const proc = Bun.spawnSync(
      [bun, "test", "--coverage", "--coverage-reporter=lcov", `--coverage-dir=${covDir}`, "./bench/trace/cell.ts"],
      { cwd: root, stdout: "pipe", stderr: "pipe", env: { ...process.env, TMPDIR: tmp, TRACE_ROW: row, TRACE_HOST: host, TRACE_PART: part, TRACE_SPAN_MS: String(spanMs), TRACE_RESULT: result } },
    )
    const output = proc.stdout.toString() + proc.stderr.toString()
    if (proc.exitCode !== 0 || !/\b1 pass\b/.test(output)) throw new Error(`trace cell ${row}/${host}/${part} failed (exit ${proc.exitCode}):\n${output.slice(-3000)}`)
    const played = JSON.parse(readFileSync(result, "utf8")) as { acts: unknown[]; windowMs: number }
    return { counts: parseLcov(readFileSync(path.join(covDir, "lcov.info"), "utf8")), ...played }
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

function trace(label: string, row: string, host: string): Trace {
  const setupA = runCell(row, host, "setup")
  const setupB = runCell(row, host, "setup")
  const recovery = runCell(row, host, "recovery")
  if (setupA.acts.length > 0) throw new Error(`${row}/${host}: the setup part already acted: ${JSON.stringify(setupA.acts)}`)
  const control = runCell(row, host, "control", recovery.windowMs)
  return { label, row, host, files: grown(setupA.counts, recovery.counts), control: grown(setupA.counts, control.counts), noise: differing(setupA.counts, setupB.counts), acts: recovery.acts, windowMs: recovery.windowMs }
}

/** The visited files the control (same span, trigger left out) did not run: the recovery's own. */
function onlyRecovery(t: Trace): Grown[] {
  const inControl = new Set(t.control.map((f) => f.file))
  return t.files.filter((f) => !inControl.has(f.file))
}

/** "core 12, host 9, ..." by the folder under src/ (the file's first path segment below it). */
function byFolder(files: readonly Grown[]): string {
  const n = new Map<string, number>()
  for (const f of files) {
    const folder = f.file.replace(/^src\//, "").split("/").slice(0, -1).join("/") || "."
    n.set(folder, (n.get(folder) ?? 0) + 1)
  }
  return [...n].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([k, v]) => `${k} ${v}`).join(", ")
}

const row = arg("row")
const host = arg("host")
const traces: Trace[] = row
  ? [trace(`${row} on ${host ?? "v1"}`, row, host ?? "v1")]
  : [trace("1.x stall recovery", "stall", "v1"), trace("2.x tool-text recovery", "tool-text", "v2")]

if (process.argv.includes("--json")) {
  console.log(JSON.stringify(traces.map((t) => ({ label: t.label, row: t.row, host: t.host, count: t.files.length, files: t.files.map((f) => f.file), onlyRecovery: onlyRecovery(t).map((f) => f.file), noise: t.noise }))))
} else {
  for (const t of traces) {
    const acts = t.acts.map((a) => (a as { act: string; kind?: string }).act + ((a as { kind?: string }).kind ? `(${(a as { kind?: string }).kind})` : "")).join(", ")
    const inControl = new Set(t.control.map((f) => f.file))
    console.log(`${t.label} (matrix row ${t.row} on ${t.host}; acts in the window: ${acts}; ${(t.windowMs / 1000).toFixed(0)} s of fake time from trigger to send)`)
    console.log(`  files visited: ${t.files.length} (${byFolder(t.files)})`)
    console.log(`  of which not run by the row's control over the same span: ${onlyRecovery(t).length} (${byFolder(onlyRecovery(t))})`)
    for (const f of t.files) console.log(`    ${inControl.has(f.file) ? " " : "*"} ${f.file.padEnd(40)} ${String(f.lines).padStart(4)} lines  ${String(f.hits).padStart(6)} line hits`)
    console.log(`    (* = not run by the control; lines = lines that ran more often than in setup alone, line hits = how many more times)`)
    console.log(`  noise (counts differ between two setup-only runs): ${t.noise.length === 0 ? "none" : t.noise.join(", ")}`)
    console.log("")
  }
}
