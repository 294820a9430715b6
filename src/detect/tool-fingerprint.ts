/**
 * Fingerprints of a tool call's arguments, so that two calls can be compared cheaply and
 * safely: an exact identity, the same with whitespace inside strings collapsed, and a loose shape (whitespace-normalized strings, numbers taken
 * out) that the live tracker's near-identical comparison works on. Object keys are sorted so
 * argument order never matters. Bounded work and never throws, because the arguments come
 * straight from the model and may be huge, cyclic or hostile proxies.
 */

/** Characters of canonical text kept in a fingerprint; the rest is represented by a hash. */
export const FINGERPRINT_HEAD_CHARS = 512
/** Canonical text produced per argument object before the walk stops (bounds the work). */
export const FINGERPRINT_MAX_CHARS = 65_536
const MAX_DEPTH = 24
const MAX_NUMBERS = 64

export type ArgsFingerprint = {
  /** Exact identity: canonical head + hash + length of the whole canonical text. */
  exact: string
  /** The same with every string's whitespace collapsed: `ls  -la` and `ls -la` are one call. */
  spaced: string
  /** Structure with strings whitespace-normalized and every number replaced by `#`. */
  shape: string
  /** The numbers the shape left out, in walk order (at most 64). */
  numbers: number[]
}

/** FNV-1a over UTF-16 code units; only needs to separate texts, not resist attackers. */
function hash32(text: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return (h >>> 0).toString(16).padStart(8, "0")
}

/**
 * Canonical text of `args`: object keys sorted at every level, cycles and deep nesting cut,
 * bigint/undefined/functions/symbols spelled out, getters that throw tolerated. Produces the
 * exact text and the loose shape in one walk, and never throws.
 */
export function fingerprintArgs(args: unknown): ArgsFingerprint {
  const exact: string[] = []
  const spaced: string[] = []
  const shape: string[] = []
  const numbers: number[] = []
  const path = new Set<object>()
  let used = 0
  const emit = (e: string, s: string = e, w: string = e) => {
    exact.push(e)
    shape.push(s)
    spaced.push(w)
    used += e.length
  }
  const walk = (value: unknown, depth: number): void => {
    if (used >= FINGERPRINT_MAX_CHARS) return emit("…")
    switch (typeof value) {
      case "string": {
        const clipped = value.length > FINGERPRINT_MAX_CHARS ? value.slice(0, FINGERPRINT_MAX_CHARS) : value
        const collapsed = JSON.stringify(clipped.trim().replace(/\s+/g, " "))
        return emit(JSON.stringify(clipped), collapsed, collapsed)
      }
      case "number":
        if (Number.isFinite(value) && numbers.length < MAX_NUMBERS) {
          numbers.push(value)
          return emit(String(value), "#", String(value))
        }
        return emit(String(value))
      case "bigint":
        return emit(`${value}n`)
      case "boolean":
      case "undefined":
        return emit(String(value))
      case "function":
      case "symbol":
        return emit(`[${typeof value}]`)
    }
    if (value === null) return emit("null")
    const obj = value as Record<string | number, unknown>
    if (path.has(obj)) return emit("[circular]")
    if (depth >= MAX_DEPTH) return emit("[deep]")
    path.add(obj)
    try {
      const array = Array.isArray(obj)
      const keys = array ? [] : Object.keys(obj).sort()
      emit(array ? "[" : "{")
      for (let i = 0; i < (array ? obj.length : keys.length) && used < FINGERPRINT_MAX_CHARS; i++) {
        if (i) emit(",")
        const key = array ? i : keys[i]!
        if (!array) emit(`${JSON.stringify(key)}:`)
        let item: unknown
        try {
          item = obj[key]
        } catch {
          item = "[unreadable]"
        }
        walk(item, depth + 1)
      }
      emit(array ? "]" : "}")
    } finally {
      path.delete(obj)
    }
  }
  try {
    walk(args, 0)
  } catch {
    // A Proxy whose traps throw, or anything else unexpected: one fixed fingerprint.
    return { exact: "[unserializable]", spaced: "[unserializable]", shape: "[unserializable]", numbers: [] }
  }
  const print = (parts: string[]) => {
    const full = parts.join("")
    return `${full.slice(0, FINGERPRINT_HEAD_CHARS)}|${full.length}|${hash32(full)}`
  }
  return { exact: print(exact), spaced: print(spaced), shape: print(shape), numbers }
}
