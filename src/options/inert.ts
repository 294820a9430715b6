/**
 * Options accepted but not applied on a host generation, printed at startup as
 * `accepted-but-inert=` so an option that is parsed but ignored is never silent.
 */
export const INERT_OPTIONS: Record<"v1" | "v2", readonly string[]> = {
  v1: [],
  v2: [],
}
