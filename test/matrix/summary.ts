/**
 * The matrix in figures: rows x hosts, how many (row, host) cells act today, how many are
 * pending a fix on its way, how many are declared inert. `bun test/matrix/summary.ts` prints it.
 */
import { HOSTS } from "./play.ts"
import { ROWS } from "./table.ts"

export type MatrixSummary = {
  rows: number
  hosts: number
  cells: number
  acting: number
  pending: { row: string; host: string; reason: string }[]
  inert: { row: string; host: string; name: string }[]
}

export function matrixSummary(): MatrixSummary {
  const pending: MatrixSummary["pending"] = []
  const inert: MatrixSummary["inert"] = []
  for (const row of ROWS) {
    for (const host of HOSTS) {
      const reason = row.pending?.[host]
      const name = row.inert?.[host]
      if (reason) pending.push({ row: row.id, host, reason })
      else if (name) inert.push({ row: row.id, host, name })
    }
  }
  const cells = ROWS.length * HOSTS.length
  return { rows: ROWS.length, hosts: HOSTS.length, cells, acting: cells - pending.length - inert.length, pending, inert }
}

export function formatSummary(s: MatrixSummary): string {
  const lines = [
    `capability matrix: ${s.rows} rows x ${s.hosts} hosts = ${s.cells} cells; ${s.acting} act, ${s.pending.length} pending, ${s.inert.length} declared inert`,
  ]
  for (const host of HOSTS) {
    const p = s.pending.filter((x) => x.host === host).length
    const i = s.inert.filter((x) => x.host === host).length
    lines.push(`  ${host}: ${s.rows - p - i} act, ${p} pending, ${i} inert`)
  }
  for (const p of s.pending) lines.push(`  pending ${p.row} on ${p.host}: ${p.reason}`)
  for (const i of s.inert) lines.push(`  inert ${i.row} on ${i.host}: ${i.name}`)
  return lines.join("\n")
}

if (import.meta.main) console.log(formatSummary(matrixSummary()))
