/**
 * Which matrix rows prove each claim of the README's "What it recovers", "Safety rails" and
 * "Pausing" sections. A claim is a list item's lead-in (bold, italic or code) or a paragraph's
 * bold lead-in, found by `readmeClaims`; coverage.test.ts fails when the README names one that
 * is missing here, or when an entry here no longer matches the README.
 *
 * A claim that is not a timeline (a budget's arithmetic, a start-up configuration, a bound on
 * every call) says where it is proven instead, with `elsewhere`.
 */
export type ClaimProof = { rows: string[] } | { elsewhere: string }

export const README_CLAIMS: Record<string, ClaimProof> = {
  // What it recovers
  "at the end of a turn": { rows: ["tool-text", "dead-stream", "done-claim-open-todos", "ready-to-continue", "action-intent", "loop-idle", "unknown-tool"] },
  "continue while busy": { rows: ["stall"] },
  "abort, then continue": { rows: ["stall", "stall-abort-strategy", "loop-live", "repetition", "repetition-tool-open", "orphan-parent", "own-abort"] },
  "A stream that goes silent.": { rows: ["stall", "stall-abort-strategy", "model-agent-kept", "subscribe-filter", "subscribe-unfiltered"] },
  stallEpisodeMaxContinues: { rows: ["retry-budget"] },
  loopMaxContinues: { elsewhere: "test/unit/core/ladder.test.ts (loopMaxContinues continues inside the window is a hallucination loop)" },
  lifetimeMaxContinues: { rows: ["lifetime-budget"] },
  "Heartbeats without progress.": { rows: ["progress-ceiling"] },
  "OpenCode's own retry of a hung request (1.x).": {
    elsewhere: "a start-up change of the provider config, not a timeline: test/e2e/stall-live.e2e.test.ts and test/e2e/headless.e2e.test.ts on the real 1.18.33 host; 2.x has no config surface (the README says so)",
  },
  "A tool that runs for a long time is not a stall.": { rows: ["tool-phase", "tool-success-failed"] },
  "A finished turn that is not really finished.": { rows: ["tool-text", "thinking-tool", "dead-stream", "done-claim-open-todos", "celebration", "stop-statement"] },
  "a tool call printed as text": { rows: ["tool-text", "thinking-tool"] },
  "a silent dead stream": { rows: ["dead-stream"] },
  "an answer cut off at the output limit": { rows: ["cut-off", "cut-off-esc"] },
  'a "done" that is not': { rows: ["done-claim-open-todos", "done-claim-no-details", "celebration", "celebration-all-closed", "stop-statement"] },
  '"ready to continue"': { rows: ["ready-to-continue", "action-intent"] },
  "a turn that simply stops with todos open": { rows: ["open-todos-stop"] },
  task_complete: { rows: ["task-complete-open-todos", "task-complete-repeated", "task-complete-subagent"] },
  "Loops.": { rows: ["loop-idle", "loop-live"] },
  "Repetition while streaming.": { rows: ["repetition", "repetition-tool-open"] },
  "Tools that do not exist.": { rows: ["unknown-tool"] },
  "Provider failures.": { rows: ["streaming-failure", "streaming-failure-chain", "rate-limit", "rate-limit-cooldown", "retry-hook-one-wait", "retry-hook-permanent", "full-context", "full-context-host-compacts"] },
  "Fallback models (opt-in).": { rows: ["fallback-model", "fallback-model-permanent"] },
  "Rate-limit waits across a restart.": {
    elsewhere:
      "a restart of the process is no timeline of one plugin: test/e2e/quota-restart.e2e.test.ts on the real 1.18.33 host (SIGKILL: one continue; a clean exit: none), test/unit/hosts/quota-restart.test.ts on both adapters; the pause that ends a wait is the rate-limit-ended-by-pause row",
  },
  "Subagents.": { rows: ["orphan-parent", "stuck-subagent", "stuck-subagent-question"] },
  "Context saturation.": { rows: ["saturation", "saturation-native", "saturation-subagent"] },
  "Sessions missed by events": { rows: ["discovery"] },
  // Safety rails
  "ESC is final.": { rows: ["esc", "esc-turn", "cut-off-esc", "own-abort", "interrupted-reasons", "interrupted-superseded"] },
  "Its own prompts are not you.": { rows: ["lifetime-budget", "own-abort"] },
  "Never the same recovery twice in a row.": { elsewhere: "test/property/invariants.test.ts (the oracle's 'a turn between' invariant over generated timelines)" },
  "Questions and permissions wait for you.": { rows: ["question-hand-off", "permission-hand-off", "question-text-hand-off", "stop-patterns-hand-off", "active-user-window", "active-user-window-ends"] },
  "Paused sessions get nothing": { rows: ["pause-command", "cli-pause"] },
  "One instance.": { rows: ["exactly-once", "idempotent-sends"] },
  "Bounded everything.": { elsewhere: "test/faults/faults.test.ts and test/property (hung, failing and junk host calls)" },
  // Pausing
  "/auto-resume off": { rows: ["pause-command"] },
  "/auto-resume": { rows: ["pause-command-on"] },
  "auto-resume-toggle <sessionID> off|on|status": { rows: ["cli-pause"] },
  "auto-resume-toggle --all off|on": { rows: ["cli-pause-all"] },
}

const SECTIONS = ["What it recovers", "Safety rails", "Pausing"]

/** The claims of the three sections, lead-ins without their markup, in README order. */
export function readmeClaims(markdown: string): string[] {
  const claims: string[] = []
  for (const name of SECTIONS) {
    const start = markdown.indexOf(`\n## ${name}\n`)
    if (start < 0) throw new Error(`README has no "## ${name}" section`)
    const next = markdown.indexOf("\n## ", start + 1)
    const body = markdown.slice(start, next < 0 ? undefined : next)
    for (const line of body.split("\n")) {
      const lead =
        /^\s*-\s+\*\*(.+?)\*\*/.exec(line) ??
        /^\s*-\s+\*(.+?)\*/.exec(line) ??
        /^\s*-\s+`(.+?)`/.exec(line) ??
        /^\*\*(.+?)\*\*/.exec(line) ??
        /^`(\/auto-resume[^`]*)`/.exec(line) ??
        /^(auto-resume-toggle .+)$/.exec(line)
      if (lead) claims.push(lead[1]!.trim())
    }
  }
  return claims
}
