/**
 * Session ids as the pause marker accepts them. OpenCode ids look like `ses_` plus 26 letters
 * and digits; we accept a little more (other hosts, future formats) but nothing that could be
 * read as a path, a flag or a terminal escape.
 */

export const MAX_SESSION_ID_LENGTH = 128

const ALLOWED = /^[A-Za-z0-9][A-Za-z0-9_.:-]*$/

/** Why `value` is not an acceptable session id, or undefined when it is. */
export function sessionIdProblem(value: unknown): string | undefined {
  if (typeof value !== "string") return "a session id must be a string"
  if (value.length === 0) return "the session id is empty"
  if (value.length > MAX_SESSION_ID_LENGTH) return `the session id is longer than ${MAX_SESSION_ID_LENGTH} characters`
  if (/[/\\]/.test(value)) return "the session id contains a path separator"
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(value)) return "the session id contains control characters"
  if (/\s/.test(value)) return "the session id contains whitespace"
  if (value.startsWith("-")) return "the session id starts with '-'"
  if (!ALLOWED.test(value)) return "the session id may only contain letters, digits and _ . : -"
  return undefined
}

export function isValidSessionId(value: unknown): value is string {
  return sessionIdProblem(value) === undefined
}

/** A short, printable rendering of untrusted input for error messages. */
export function printable(value: unknown, max = 40): string {
  const text = typeof value === "string" ? value : String(value)
  // eslint-disable-next-line no-control-regex
  const safe = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?")
  return JSON.stringify(safe.length > max ? `${safe.slice(0, max)}...` : safe)
}
