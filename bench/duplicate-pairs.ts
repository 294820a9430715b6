/**
 * The duplicate-code figure of issue 16: pairs of places in src/ that repeat each other, and how
 * many of those pairs join the two host adapters (one side under host/v1, the other under
 * host/v2), at a minimum run of 6 lines (the tool's default) and of 4.
 *
 *   bun bench/duplicate-pairs.ts [--json]
 *
 * Runs `duplicates --repo src --most 200 --min-lines N` (the machine's `duplicates` tool) and
 * counts its rows (`D<n> a:lines ~ b:lines ...`) plus any `(+N more pairs)` it cut; prints the
 * host/v1 <-> host/v2 rows as they are.
 */
import path from "node:path"

const root = path.join(import.meta.dir, "..")

type Figure = { minLines: number; header: string; pairs: number; hostPairs: string[]; incomplete: string[] }

export function countPairs(output: string, minLines: number): Figure {
  const lines = output.split("\n")
  const rows = lines.filter((l) => /^D\d+ /.test(l))
  const more = lines.map((l) => /^\(\+(\d+) more pairs\)/.exec(l.trim())).find((m) => m)
  const sides = (row: string) => row.split(/\s+/).filter((w) => /:\d+-\d+$/.test(w))
  const hostPairs = rows.filter((row) => {
    const [a = "", b = ""] = sides(row)
    return (a.startsWith("host/v1/") && b.startsWith("host/v2/")) || (a.startsWith("host/v2/") && b.startsWith("host/v1/"))
  })
  return {
    minLines,
    header: lines[0] ?? "",
    pairs: rows.length + (more ? Number(more[1]) : 0),
    hostPairs,
    incomplete: lines.filter((l) => /^(incomplete|left out):/.test(l)),
  }
}

const figures: Figure[] = [6, 4].map((n) => {
  const proc = Bun.spawnSync(["duplicates", "--repo", "src", "--most", "200", "--min-lines", String(n), "--seconds", "120"], { cwd: root, stdout: "pipe", stderr: "pipe" })
  if (proc.exitCode !== 0) throw new Error(`duplicates failed (exit ${proc.exitCode}): ${proc.stderr.toString().slice(0, 500)}`)
  return countPairs(proc.stdout.toString(), n)
})

if (process.argv.includes("--json")) console.log(JSON.stringify(figures))
else
  for (const f of figures) {
    console.log(`--min-lines ${f.minLines}: ${f.pairs} pairs; between host/v1 and host/v2: ${f.hostPairs.length}`)
    console.log(`  ${f.header}`)
    for (const row of f.hostPairs) console.log(`  ${row}`)
    for (const line of f.incomplete) console.log(`  ${line}`)
  }
