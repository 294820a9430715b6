/**
 * Options accepted (validated, documented) but not yet applied on a host generation.
 * The startup log line prints this list as `accepted-but-inert=`; it must shrink to empty.
 */
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
  v2: ["*"],
}
