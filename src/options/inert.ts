/**
 * Options accepted (validated, documented) but not yet applied on a host generation.
 * The startup log line prints this list as `accepted-but-inert=`; it must shrink to empty.
 */
/** Options the 2.x adapter applies itself: hidden channels, send spacing, the instance registry. */
const APPLIED_BY_V2_ADAPTER: ReadonlySet<string> = new Set([
  "visibleContinue",
  "quietCorrections",
  "injectIntervalMs",
  "shareWatchState",
  "registryScope",
])

export const INERT_OPTIONS: Record<"v1" | "v2", readonly string[]> = {
  v1: [
    "subagentWaitMs",
    "subagentDeadMs",
    "streamingFailureErrorNames",
    "streamingFailureMessagePatterns",
    "toolTextCheckDelayMs",
    "minActivityGapMs",
    "warmupMs",
    "resumeOnActionIntent",
    "actionIntentPrompt",
    "toolTextRecoveryPrompt",
    "thinkingToolRecoveryPrompt",
    "doneWithoutWorkPrompt",
    "doneWithoutDetailsPrompt",
    "doneClaimPatterns",
    "readyToContinuePatterns",
    "silentDeadStreamMinTokens",
    "contextSaturationThreshold",
    "activeUserWindowMs",
    "stopPatterns",
    "subagentNativeCompactionEnabled",
    "injectIntervalMs",
    "visibleContinue",
    "rateLimitCooldownsMs",
    "shareWatchState",
    "registryScope",
    "quietCorrections",
  ],
  // Everything the core does not apply yet: the v1 list minus what only the 2.x adapter
  // applies. Derived, so each option the core learns leaves both lists at once.
  get v2() {
    return INERT_OPTIONS.v1.filter((name) => !APPLIED_BY_V2_ADAPTER.has(name))
  },
}
