/**
 * Fingerprints of a tool call's arguments, so that two calls can be compared cheaply and
 * safely: an exact identity, and a loose shape (whitespace-normalized strings, numbers taken
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

function collapseWhitespace(s: string): string {
  return s.trim().replace(/\s+/g, " ")
}

class Budget {
  used = 0
  get spent(): boolean {
    return this.used >= FINGERPRINT_MAX_CHARS
  }
}

/**
 * Canonical text of a value: object keys sorted at every level, cycles and deep nesting cut,
 * bigint/undefined/functions/symbols spelled out, getters that throw tolerated. Produces the
 * exact text and the loose shape in one walk. Never throws.
 */
function walk(value: unknown, depth: number, path: Set<object>, budget: Budget, exact: string[], shape: string[], numbers: number[]): void {
  const emit = (e: string, s: string = e) => {
    exact.push(e)
    shape.push(s)
    budget.used += e.length
  }
  if (budget.spent) return emit("…")
  switch (typeof value) {
    case "string": {
      const clipped = value.length > FINGERPRINT_MAX_CHARS ? value.slice(0, FINGERPRINT_MAX_CHARS) : value
      return emit(JSON.stringify(clipped), JSON.stringify(collapseWhitespace(clipped)))
    }
    case "number":
      if (Number.isFinite(value)) {
        if (numbers.length < MAX_NUMBERS) {
          numbers.push(value)
          return emit(String(value), "#")
        }
        return emit(String(value))
      }
      return emit(String(value))
    case "bigint":
      return emit(`${value}n`)
    case "boolean":
      return emit(String(value))
    case "undefined":
      return emit("undefined")
    case "function":
      return emit("[function]")
    case "symbol":
      return emit("[symbol]")
  }
  if (value === null) return emit("null")
  const obj = value as object
  if (path.has(obj)) return emit("[circular]")
  if (depth >= MAX_DEPTH) return emit("[deep]")
  path.add(obj)
  try {
    if (Array.isArray(obj)) {
      emit("[")
      for (let i = 0; i < obj.length && !budget.spent; i++) {
        if (i) emit(",")
        let item: unknown
        try {
          item = obj[i]
        } catch {
          item = "[unreadable]"
        }
        walk(item, depth + 1, path, budget, exact, shape, numbers)
      }
      emit("]")
    } else {
      const keys = Object.keys(obj).sort()
      emit("{")
      for (let i = 0; i < keys.length && !budget.spent; i++) {
        const k = keys[i]!
        if (i) emit(",")
        emit(`${JSON.stringify(k)}:`)
        let item: unknown
        try {
          item = (obj as Record<string, unknown>)[k]
        } catch {
          item = "[unreadable]"
        }
        walk(item, depth + 1, path, budget, exact, shape, numbers)
      }
      emit("}")
    }
  } finally {
    path.delete(obj)
  }
}

export function fingerprintArgs(args: unknown): ArgsFingerprint {
  const exact: string[] = []
  const shape: string[] = []
  const numbers: number[] = []
  try {
    walk(args, 0, new Set(), new Budget(), exact, shape, numbers)
  } catch {
    // A Proxy whose traps throw, or anything else unexpected: one fixed fingerprint.
    return { exact: "[unserializable]", shape: "[unserializable]", numbers: [] }
  }
  const full = exact.join("")
  const loose = shape.join("")
  const head = full.length > FINGERPRINT_HEAD_CHARS ? full.slice(0, FINGERPRINT_HEAD_CHARS) : full
  const looseHead = loose.length > FINGERPRINT_HEAD_CHARS ? loose.slice(0, FINGERPRINT_HEAD_CHARS) : loose
  return {
    exact: `${head}|${full.length}|${hash32(full)}`,
    shape: `${looseHead}|${loose.length}|${hash32(loose)}`,
    numbers,
  }
}
