/**
 * Options accepted but not applied on a host generation, printed at startup as
 * `accepted-but-inert=` so an option that is parsed but ignored is never silent; and the
 * behaviours of the README a host cannot carry at all (the matrix's inert rows name them).
 */
export const INERT_OPTIONS: Record<"v1" | "v2", readonly string[]> = {
  v1: [],
  // 2.x gives a plugin no toast API: what 1.x shows as a toast (it gave up, a fallback took
  // over, a session waits on the user) is in the history and the status only.
  v2: ["toasts"],
}
