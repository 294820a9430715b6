/**
 * `auto-resume-toggle <sessionID>|--all off|on|status` (and `history`, history-command.ts; and
 * `<sessionID> goal [<text>|off]`, goal-command.ts): pause or resume opencode-auto-resume from
 * outside the chat by writing the pause marker file the running plugin watches. Every run also
 * applies the file's housekeeping (src/core/pause-leases.ts), with a note on stderr per dropped
 * pause. A pause written here is held by nobody until the OpenCode that runs the session claims it.
 * Exit status: 0 done, 1 the marker file could not be read or written, 2 bad usage. `main` does
 * not exit the process; bin/auto-resume-toggle.mjs does.
 */
import { endPausedWaits, waitStatusLines } from "./rate-wait-lines.ts"
import { emptyPauseState, sessionHold, tidyPauses, viewHold, type DroppedPause, type Hold } from "../core/pause-leases.ts"
import { droppedText, holdText } from "../prompts/hold-text.ts"
import { PauseMarkerFile, pauseFilePath, printable, sessionIdProblem, type PauseState } from "../stores/pause-marker.ts"
import { parseHistoryArgs, runHistory } from "./history-command.ts"
import { JOURNAL_FILE_NAME } from "../stores/journal-file.ts"
import { RATE_WAIT_FILE_NAME } from "../stores/wait-file.ts"
import { GOAL_FILE_NAME } from "../stores/goal-file.ts"
import { goalStatusLine, parseGoalCliArgs, runGoal, type GoalCliArgs } from "./goal-command.ts"
import path from "node:path"

export const EXIT_OK = 0
export const EXIT_FAILED = 1
export const EXIT_USAGE = 2

const PROGRAM = "auto-resume-toggle"

export type CliIo = {
  stdout: (line: string) => void
  stderr: (line: string) => void
  env: Record<string, string | undefined>
  /** Epoch milliseconds (tests). */
  now: () => number
}

type Action = "on" | "off" | "status"
type Parsed =
  | { kind: "help" }
  | { kind: "run"; target: { all: true } | { all: false; sessionID: string }; action: Action }
  | { kind: "goal"; sessionID: string; goal: GoalCliArgs }
  | { kind: "usage"; reason: string }

export function helpText(file: string): string {
  return [
    `Usage: ${PROGRAM} <sessionID> off|on|status`,
    `       ${PROGRAM} --all off|on|status`,
    `       ${PROGRAM} history [sessionID] [--json]`,
    `       ${PROGRAM} <sessionID> goal [<text> | off]`,
    `       ${PROGRAM} --help`,
    "",
    "Pauses (off) or resumes (on) automatic recovery by opencode-auto-resume for one session, or",
    "for every session with --all, without opening the chat; status shows what is paused.",
    "A running OpenCode honours the change within one watchdog interval and then holds the",
    "pause: other OpenCode processes starting or stopping leave it alone, a restart of the",
    "OpenCode that runs the session lifts it. A pause no running OpenCode claims is dropped",
    "after 24 hours. `--all on` lifts the global pause and every session's pause.",
    "status also lists the rate-limit waits in the wait file (until when, and whether a wait was",
    "carried over from an OpenCode that crashed); off ends the waits of the sessions it pauses.",
    "",
    "goal <text> keeps the session going until the goal is met (the model calls task_complete with",
    "evidence), within the plugin's goalMaxContinues and goalMaxMs; goal alone shows it, goal off",
    "clears it. A running OpenCode picks the change up within one watchdog interval.",
    "",
    "history lists what the plugin did (every continue, abort, prompt or switch, and every one a",
    "guard held back), with what it saw and whether the session came back, newest last; with a",
    "session id (or the tail the table shows) only that session; --json prints the stored lines.",
    "",
    `Pause file: ${file}`,
    `History file: ${path.join(path.dirname(file), JOURNAL_FILE_NAME)}`,
    `Wait file: ${path.join(path.dirname(file), RATE_WAIT_FILE_NAME)}`,
    `Goal file: ${path.join(path.dirname(file), GOAL_FILE_NAME)}`,
    "Exit status: 0 done, 1 the pause file could not be read or written, 2 bad usage.",
  ].join("\n")
}

export function parseArgs(argv: readonly string[]): Parsed {
  if (argv.some((a) => a === "--help" || a === "-h")) return { kind: "help" }
  if (argv.length === 0) return { kind: "usage", reason: "missing arguments: expected <sessionID> off|on|status or --all off|on|status" }
  const [first, second, ...rest] = argv
  if (second?.trim().toLowerCase() === "goal") {
    if (first === "--all") return { kind: "usage", reason: "a goal is set for one session, not with --all" }
    const problem = first === undefined || first.startsWith("-") ? `unknown option ${printable(first)}` : sessionIdProblem(first)
    if (problem) return { kind: "usage", reason: first?.startsWith("-") ? problem : `invalid session id ${printable(first)}: ${problem}` }
    return { kind: "goal", sessionID: first!, goal: parseGoalCliArgs(rest) }
  }
  if (rest.length > 0) return { kind: "usage", reason: `too many arguments (unexpected ${printable(rest[0])})` }
  const action = parseAction(second)
  if (first === "--all") {
    if (!action) return { kind: "usage", reason: second === undefined ? "missing action after --all: off, on or status" : `unknown action ${printable(second)}: use off, on or status` }
    return { kind: "run", target: { all: true }, action }
  }
  if (first === undefined || first.startsWith("-")) return { kind: "usage", reason: `unknown option ${printable(first)}` }
  const problem = sessionIdProblem(first)
  if (problem) return { kind: "usage", reason: `invalid session id ${printable(first)}: ${problem}` }
  if (!action) return { kind: "usage", reason: second === undefined ? "missing action: off, on or status" : `unknown action ${printable(second)}: use off, on or status` }
  return { kind: "run", target: { all: false, sessionID: first }, action }
}

function parseAction(value: string | undefined): Action | undefined {
  const v = value?.trim().toLowerCase()
  return v === "on" || v === "off" || v === "status" ? v : undefined
}

function defaultIo(): CliIo {
  return {
    stdout: (line) => process.stdout.write(`${line}\n`),
    stderr: (line) => process.stderr.write(`${line}\n`),
    env: process.env,
    now: Date.now,
  }
}

export async function main(argv: readonly string[], io: Partial<CliIo> = {}): Promise<number> {
  const out = { ...defaultIo(), ...io }
  const filePath = pauseFilePath(out.env)
  if (argv[0] === "history" && !argv.some((a) => a === "--help" || a === "-h")) {
    const args = parseHistoryArgs(argv.slice(1))
    if ("usage" in args) {
      out.stderr(`${PROGRAM}: ${args.usage} (see ${PROGRAM} --help)`)
      return EXIT_USAGE
    }
    await runHistory(args, out)
    return EXIT_OK
  }
  const parsed = parseArgs(argv)
  if (parsed.kind === "help") {
    out.stdout(helpText(filePath))
    return EXIT_OK
  }
  if (parsed.kind === "usage") {
    out.stderr(`${PROGRAM}: ${parsed.reason} (see ${PROGRAM} --help)`)
    return EXIT_USAGE
  }
  if (parsed.kind === "goal") return runGoal(parsed.sessionID, parsed.goal, out)
  const file = new PauseMarkerFile(filePath)
  const { target, action } = parsed
  try {
    const now = out.now()
    let dropped: DroppedPause[] = []
    let leases: PauseState["leases"] = []
    const { state, problem } = await file.update((s) => {
      leases = s.leases ?? []
      const tidied = tidyPauses(s, { now, prune: true })
      dropped = tidied.dropped
      return edit(tidied.state, target, action, now)
    })
    if (problem) out.stderr(`${PROGRAM}: warning: ${filePath} was not a usable pause file (${problem}); it was read as empty and rewritten`)
    for (const d of dropped) out.stderr(`${PROGRAM}: note: ${droppedText(d, leases)}`)
    out.stdout(report(state, target, action))
    if (action === "status") {
      const hold = holdLine(state, target, now)
      if (hold) out.stdout(`  ${hold}`)
      for (const line of waitStatusLines(out.env, target, now)) out.stdout(`  ${line}`)
      const goal = target.all ? undefined : goalStatusLine(out.env, target.sessionID)
      if (goal) out.stdout(`  ${goal}`)
    }
    if (action === "off") {
      const ended = await endPausedWaits(out.env, target, now)
      if (ended > 0) out.stdout(`  the pause ended ${ended} rate-limit wait(s)`)
    }
    return EXIT_OK
  } catch (error) {
    out.stderr(`${PROGRAM}: ${error instanceof Error ? error.message : String(error)}`)
    return EXIT_FAILED
  }
}

type Target = { all: true } | { all: false; sessionID: string }

/** The change asked for. A new pause is held by nobody yet (`at` only); the leases are never touched. */
function edit(state: PauseState, target: Target, action: Action, now: number): PauseState {
  if (action === "status") return state // rewritten as is: repairs a malformed file
  const fresh: Hold = { at: now }
  if (target.all) {
    if (action === "on") return { ...emptyPauseState(), leases: state.leases }
    return state.all ? state : { ...state, all: true, allHold: fresh }
  }
  const id = target.sessionID
  if (action === "off") return state.sessions.includes(id) ? state : { ...state, sessions: [...state.sessions, id], holds: [...(state.holds ?? []), { session: id, ...fresh }] }
  return { ...state, sessions: state.sessions.filter((s) => s !== id), holds: state.holds?.filter((h) => h.session !== id) }
}

function holdLine(state: PauseState, target: Target, now: number): string | undefined {
  const leases = state.leases ?? []
  if (target.all) return state.all ? holdText(viewHold(state.allHold, leases, now), now) : undefined
  const own = sessionHold(state, target.sessionID)
  if (own) return holdText(viewHold(own, leases, now), now)
  return state.all ? `all sessions: ${holdText(viewHold(state.allHold, leases, now), now)}` : undefined
}

function report(state: PauseState, target: Target, action: Action): string {
  if (target.all) {
    const head = `all sessions: ${state.all ? "paused" : "not paused"}`
    if (action === "on") return `${head} (every pause lifted)`
    const listed = state.sessions.length ? `; paused one by one: ${state.sessions.join(", ")}` : ""
    return `${head}${listed}`
  }
  const own = state.sessions.includes(target.sessionID)
  if (own) return `${target.sessionID}: paused`
  if (state.all) return `${target.sessionID}: paused (all sessions are paused; ${PROGRAM} --all on lifts it)`
  return `${target.sessionID}: not paused`
}
