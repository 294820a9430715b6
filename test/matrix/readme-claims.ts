/**
 * Which matrix rows prove each claim the README and docs/ make. A claim is found by `claimsOf`:
 * a list item's lead-in (bold, italic or code), a paragraph's bold lead-in, a line that starts
 * with a `/auto-resume` command, an `auto-resume-toggle` command line in a code block, or the
 * first cell of a "what goes wrong" table. coverage.test.ts fails when a page names a claim that
 * is missing here, or when an entry here no longer appears on any page.
 *
 * Which pages are read: the whole README and every page of docs/ listed in CLAIM_PAGES.
 * REFERENCE_PAGES are the pages that describe no recovery (the generated options table, file
 * formats, log lines, install and test instructions), each with where its content is checked
 * instead; every page of docs/ must be in exactly one of the two lists.
 *
 * A claim that is not a timeline (a budget's arithmetic, a start-up configuration, a bound on
 * every call) says where it is proven instead, with `elsewhere`.
 */
export type ClaimProof = { rows: string[] } | { elsewhere: string }

/** Pages read for claims, besides README.md; paths relative to the repository root. */
export const CLAIM_PAGES = [
  "docs/how-it-acts.md",
  "docs/stalls.md",
  "docs/finished-turns.md",
  "docs/loops.md",
  "docs/repetition.md",
  "docs/unknown-tools.md",
  "docs/failing-tools.md",
  "docs/provider-failures.md",
  "docs/fallback-models.md",
  "docs/subagents.md",
  "docs/context-saturation.md",
  "docs/goals.md",
  "docs/unattended-hours.md",
  "docs/pausing-and-history.md",
  "docs/opencode-2.md",
]

/** Pages of docs/ that make no recovery claim, and where what they say is checked. */
export const REFERENCE_PAGES: Record<string, string> = {
  "docs/README.md": "the index of the other pages",
  "docs/options.md": "the generated options table: test/unit/docs/options-table.test.ts holds it to the schema",
  "docs/state-files.md": "file locations, formats and limits: test/unit/stores (marker, leases, rate-wait file, journal), test/unit/history, test/unit/core/carried-waits.test.ts",
  "docs/logs-and-troubleshooting.md": "log lines and advice; the lines themselves are asserted by the e2e tests and the matrix log checks",
  "docs/install.md": "config snippets: test/e2e/package.e2e.test.ts loads the packed package in a real 1.18.33",
  "docs/end-to-end-tests.md": "how to run the tests; the commands are the tests themselves",
}

export const DOC_CLAIMS: Record<string, ClaimProof> = {
  // README: what goes wrong, and what it does
  "A stream goes silent while the session still says busy": { rows: ["stall", "stall-abort-strategy", "retry-budget"] },
  "Events keep coming but nothing moves": { rows: ["progress-ceiling"] },
  "OpenCode itself waits five minutes on a hung request (1.x)": {
    elsewhere: "a start-up change of the provider config, not a timeline: test/e2e/stall-live.e2e.test.ts and test/e2e/headless.e2e.test.ts on the real 1.18.33 host",
  },
  "A tool runs for a long time": { rows: ["tool-phase", "tool-success-failed"] },
  'A turn ends on a tool call printed as text, a dead stream, a cut-off answer, a false "done" or an announced step not taken': {
    rows: ["tool-text", "dead-stream", "cut-off", "done-claim-open-todos", "action-intent"],
  },
  "The model calls the same tools over and over": { rows: ["loop-idle", "loop-idle-cycle", "loop-live"] },
  "The model streams the same passage again and again": { rows: ["repetition", "repetition-tool-open"] },
  "The model calls a tool that does not exist, twice": { rows: ["unknown-tool"] },
  "The same tool fails three times in a row": { rows: ["failing-tool", "failing-tool-mixed", "failing-tool-denied"] },
  "The provider breaks the stream and OpenCode gives up": { rows: ["streaming-failure", "streaming-failure-chain"] },
  "A rate limit or spent quota": { rows: ["rate-limit", "rate-limit-cooldown", "rate-limit-ended-by-pause"] },
  "The model stays unavailable longer than a stall budget": { rows: ["fallback-model", "fallback-model-permanent"] },
  "A fallback model took over and your model's wait is over": { rows: ["fallback-return-to-model"] },
  "The context window fills up, or nearly": { rows: ["full-context", "full-context-host-compacts", "saturation", "saturation-native", "saturation-subagent"] },
  "A parent session sits busy after its subagents finished": { rows: ["orphan-parent", "stuck-subagent"] },
  "A session the plugin heard no events for": { rows: ["discovery"] },
  "A session runs on for hours with nobody there": { rows: ["unattended-hours", "unattended-off", "unattended-user-writes"] },
  "A session stops before the goal you gave it is met": { rows: ["goal-continues", "goal-met", "goal-no-progress", "goal-budget"] },
  // README: what it never does
  "It does not interrupt a running tool.": { rows: ["tool-phase", "repetition-tool-open", "loop-live", "orphan-parent"] },
  "It never overrides ESC or an undo.": { rows: ["esc", "esc-turn", "cut-off-esc", "own-abort", "interrupted-reasons", "interrupted-superseded", "undo-turn", "undo-hand", "undo-then-write"] },
  "It never talks over you.": { rows: ["question-hand-off", "permission-hand-off", "question-text-hand-off", "stop-patterns-hand-off", "active-user-window"] },
  "It never loops on its own.": { rows: ["retry-budget", "lifetime-budget"] },
  "It never sends the same prompt twice.": { rows: ["exactly-once", "idempotent-sends"] },
  // README: pausing, status and history
  "/auto-resume status": { rows: ["pause-command"] },
  "/auto-resume history": { elsewhere: "test/e2e/history.e2e.test.ts on the real 1.18.33 host, test/unit/v1/command-hooks.test.ts" },
  // docs/pausing-and-history.md: the history
  revived: { elsewhere: "test/unit/core/journal.test.ts and test/e2e/history.e2e.test.ts (an outcome of the history, not a recovery)" },
  "no effect": { elsewhere: "test/unit/core/journal.test.ts (an outcome of the history, not a recovery)" },
  held: { elsewhere: "test/unit/core/journal-holds.test.ts (an outcome of the history, not a recovery)" },
  "gave up": { elsewhere: "test/unit/core/journal.test.ts (an outcome of the history, not a recovery)" },
  "auto-resume-toggle history": { elsewhere: "test/unit/history/cli-history.test.ts" },
  "auto-resume-toggle history <sessionID>": { elsewhere: "test/unit/history/cli-history.test.ts" },
  "auto-resume-toggle history --json": { elsewhere: "test/unit/history/cli-history.test.ts" },
  // docs/: the recovery paths, rails and controls
  "at the end of a turn": { rows: ["tool-text", "dead-stream", "done-claim-open-todos", "ready-to-continue", "action-intent", "loop-idle", "unknown-tool", "failing-tool"] },
  "continue while busy": { rows: ["stall"] },
  "abort, then continue": { rows: ["stall", "stall-abort-strategy", "loop-live", "repetition", "repetition-tool-open", "orphan-parent", "own-abort"] },
  "A stream that goes silent.": { rows: ["stall", "stall-abort-strategy", "model-agent-kept", "subscribe-filter", "subscribe-unfiltered"] },
  stallEpisodeMaxContinues: { rows: ["retry-budget"] },
  loopMaxContinues: { elsewhere: "test/unit/core/ladder.test.ts (loopMaxContinues continues inside the window is a hallucination loop)" },
  lifetimeMaxContinues: { rows: ["lifetime-budget"] },
  "Heartbeats without progress.": { rows: ["progress-ceiling"] },
  "OpenCode's own retry of a hung request (1.x).": {
    elsewhere: "a start-up change of the provider config, not a timeline: test/e2e/stall-live.e2e.test.ts and test/e2e/headless.e2e.test.ts on the real 1.18.33 host; 2.x has no config surface (docs/stalls.md says so)",
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
  "Tools that keep failing.": { rows: ["failing-tool", "failing-tool-mixed"] },
  "Never for a call you refused.": { rows: ["failing-tool-denied"] },
  "At the end of the turn, never in the middle of it.": { rows: ["failing-tool", "failing-tool-held", "failing-tool-asks"] },
  "One per turn, within a budget.": { elsewhere: "test/unit/paths/failing-tools.test.ts (one correction per turn, the streak starting over, the finishedTurnMaxNudges budget)" },
  "Provider failures.": { rows: ["streaming-failure", "streaming-failure-chain", "rate-limit", "rate-limit-cooldown", "retry-hook-one-wait", "retry-hook-permanent", "full-context", "full-context-host-compacts"] },
  "Fallback models (opt-in).": { rows: ["fallback-model", "fallback-model-permanent"] },
  "Back to your model without writing.": { rows: ["fallback-return-to-model"] },
  "Rate-limit waits across a restart.": {
    elsewhere:
      "a restart of the process is no timeline of one plugin: test/e2e/quota-restart.e2e.test.ts on the real 1.18.33 host (SIGKILL: one continue; a clean exit: none), test/unit/hosts/quota-restart.test.ts on both adapters; the pause that ends a wait is the rate-limit-ended-by-pause row",
  },
  "Subagents.": { rows: ["orphan-parent", "stuck-subagent", "stuck-subagent-question"] },
  "Context saturation.": { rows: ["saturation", "saturation-native", "saturation-hand-off", "saturation-subagent"] },
  "Sessions missed by events": { rows: ["discovery"] },
  // docs/how-it-acts.md: safety rails
  "ESC is final.": { rows: ["esc", "esc-turn", "cut-off-esc", "own-abort", "interrupted-reasons", "interrupted-superseded"] },
  "Its own prompts are not you.": { rows: ["lifetime-budget", "own-abort"] },
  "Never the same recovery twice in a row.": { elsewhere: "test/property/invariants.test.ts (the oracle's 'a turn between' invariant over generated timelines)" },
  "Questions and permissions wait for you.": { rows: ["question-hand-off", "permission-hand-off", "question-text-hand-off", "stop-patterns-hand-off", "active-user-window", "active-user-window-ends"] },
  "Paused sessions get nothing": { rows: ["pause-command", "cli-pause"] },
  "Unattended hours, if you set them.": { rows: ["unattended-hours", "unattended-user-writes"] },
  "One instance.": { rows: ["exactly-once", "idempotent-sends"] },
  "Bounded everything.": { elsewhere: "test/faults/faults.test.ts and test/property (hung, failing and junk host calls)" },
  // docs/pausing-and-history.md: pausing
  "/auto-resume off": { rows: ["pause-command"] },
  "/auto-resume": { rows: ["pause-command-on"] },
  "auto-resume-toggle <sessionID> off|on|status": { rows: ["cli-pause"] },
  "auto-resume-toggle --all off|on": { rows: ["cli-pause-all"] },
  // docs/unattended-hours.md
  "Unattended hours (opt-in).": { rows: ["unattended-hours", "unattended-off"] },
  "Said once, where you look.": { rows: ["unattended-hours"] },
  "You writing again starts the count afresh.": { rows: ["unattended-user-writes"] },
  // docs/goals.md: goal mode
  "/auto-resume goal <text>": { rows: ["goal-continues", "goal-met"] },
  "/auto-resume goal off": { elsewhere: "test/unit/pause/goal-command.test.ts (the goal file, the reply and the history line of a clear)" },
  "auto-resume-toggle <sessionID> goal <text>|off": { rows: ["goal-cli"] },
  "Each finished turn that did not meet it gets one continue.": { rows: ["goal-continues", "goal-budget"] },
  "Met only with evidence.": { rows: ["goal-met"] },
  "a hand-off": { rows: ["goal-hand-off"] },
  "an open question, form or permission": { elsewhere: "test/unit/paths/goal.test.ts ('every guard wins': each guard with the same turn as its negative control); the guards themselves are the question-hand-off, permission-hand-off, pause-command and esc rows" },
  "you writing": { rows: ["goal-user-writes"] },
  "the continue budgets": { elsewhere: "test/unit/paths/goal.test.ts (the lifetime cap, and the injectIntervalMs spacing a continue waits for)" },
  goalMaxContinues: { rows: ["goal-budget"] },
  goalMaxMs: { elsewhere: "test/unit/paths/goal.test.ts (stood down on the path's wake at the deadline, on a simulated clock)" },
  "no progress": { rows: ["goal-no-progress"] },
}

/** One claim and the page that makes it. */
export type Claim = { page: string; claim: string }

const FENCE = /^\s*(```|~~~)/

/** The claims of one page, lead-ins without their markup, in page order. */
export function claimsOf(markdown: string): string[] {
  const claims: string[] = []
  let fenced = false
  let inTable: "claims" | "other" | undefined
  for (const line of markdown.split("\n")) {
    if (FENCE.test(line)) {
      fenced = !fenced
      continue
    }
    if (fenced) {
      // A command line of the toggle CLI, without a trailing comment.
      const command = /^(auto-resume-toggle .+?)(\s+#.*)?$/.exec(line)
      if (command) claims.push(command[1]!.trim())
      continue
    }
    if (/^\s*\|/.test(line)) {
      const cells = line.trim().replace(/^\|/, "").replace(/\|$/, "").split(/(?<!\\)\|/).map((c) => c.trim())
      if (inTable === undefined) inTable = /^what goes wrong$/i.test(cells[0] ?? "") ? "claims" : "other"
      else if (inTable === "claims" && !/^:?-+:?$/.test(cells[0] ?? "")) claims.push(cells[0]!)
      continue
    }
    inTable = undefined
    if (/^#/.test(line)) continue
    const lead =
      /^\s*-\s+\*\*(.+?)\*\*/.exec(line) ??
      /^\s*-\s+\*(.+?)\*/.exec(line) ??
      /^\s*-\s+`(.+?)`/.exec(line) ??
      /^\*\*(.+?)\*\*/.exec(line) ??
      /^`(\/auto-resume[^`]*)`/.exec(line)
    if (lead) claims.push(lead[1]!.trim())
  }
  return claims
}

/** The claims that have no entry in `map`: what the coverage test requires to be empty. */
export function unmapped(claims: readonly Claim[], map: Record<string, ClaimProof> = DOC_CLAIMS): Claim[] {
  return claims.filter((c) => !Object.hasOwn(map, c.claim))
}
