/**
 * Reading values the host handed over without ever throwing. Options come from a user's
 * config, which may hold odd values, throwing getters or hostile proxies; every read and every
 * rendering of a value for a warning goes through these helpers so that none of that can take
 * the resolver down (resolve.ts promises it never throws).
 */

const PREVIEW_LIMIT = 80

/** A short rendering of any value for a warning; never throws. */
export function preview(value: unknown): string {
  try {
    switch (typeof value) {
      case "number":
      case "bigint":
      case "boolean":
      case "undefined":
        return String(value)
      case "symbol":
        return "a symbol"
      case "function":
        return "a function"
    }
    const json = JSON.stringify(value)
    if (json === undefined) return typeof value
    return json.length > PREVIEW_LIMIT ? `${json.slice(0, PREVIEW_LIMIT - 1)}…` : json
  } catch {
    return Array.isArray(value) ? "a list that cannot be shown" : "a value that cannot be shown"
  }
}

export function errorText(error: unknown): string {
  try {
    if (error instanceof Error) return error.message
    return String(error)
  } catch {
    return "unknown error"
  }
}

export function isPlainObject(value: unknown): value is object {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

export type Read<T = unknown> = { ok: true; value: T } | { ok: false; error: string }

/** One read of a config value (a getter or a proxy trap may throw), as a result. */
function attempt<T>(read: () => T): Read<T> {
  try {
    return { ok: true, value: read() }
  } catch (error) {
    return { ok: false, error: errorText(error) }
  }
}

export const readProperty = (source: object, key: string): Read => attempt(() => (source as Record<string, unknown>)[key])

export const readKeys = (source: object): Read<string[]> => attempt(() => Object.keys(source))
