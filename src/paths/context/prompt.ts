/**
 * Reason for the one continue after a compaction the plugin asked for: what happened to the
 * conversation, so the model knows its earlier turns are now a summary.
 */
export function contextCompactedReason(cause: "overflow" | "saturation"): string {
  const why = cause === "overflow" ? "the context window overflowed (the provider refused the prompt)" : "the context window was nearly full"
  return `${why}, so the conversation was compacted into a summary; re-read any file you need before you edit it`
}
