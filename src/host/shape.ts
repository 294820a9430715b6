/**
 * Defensive readers for host payloads. Hosts change field names between versions and a
 * malformed event must be skipped, never crash the plugin: everything here returns
 * undefined instead of throwing.
 */
export type Obj = Record<string, unknown>

export function asObj(value: unknown): Obj | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : undefined
}

export function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined
}

export function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined
}

/** Reads a nested field by path, e.g. get(e, "properties", "info", "id"). */
export function get(value: unknown, ...path: string[]): unknown {
  let current: unknown = value
  for (const key of path) {
    const o = asObj(current)
    if (!o) return undefined
    current = o[key]
  }
  return current
}

/** Retry-After from response headers: `retry-after-ms`, or `retry-after` in seconds or as a date. */
export function retryAfterMs(headers: unknown, now: number): number | undefined {
  const h = asObj(headers)
  if (!h) return undefined
  const lower: Obj = {}
  for (const [k, v] of Object.entries(h)) lower[k.toLowerCase()] = v
  const ms = Number(str(lower["retry-after-ms"]))
  if (Number.isFinite(ms) && ms >= 0) return ms
  const raw = str(lower["retry-after"])
  if (raw === undefined) return undefined
  const seconds = Number(raw)
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000
  const date = Date.parse(raw)
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined
}
