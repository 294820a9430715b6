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

