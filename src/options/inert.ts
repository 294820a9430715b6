/**
 * Options accepted (validated, documented) but not applied on a host generation. The startup
 * log line prints this list as `accepted-but-inert=`, so an option that is parsed but ignored
 * is never silent. Every option is applied on both hosts today: the core applies the recovery
 * options, each adapter's port and the instance registry apply visibleContinue,
 * quietCorrections, injectIntervalMs, shareWatchState and registryScope.
 */
export const INERT_OPTIONS: Record<"v1" | "v2", readonly string[]> = {
  v1: [],
  v2: [],
}
