/**
 * The seam between OpenCode and the recovery core.
 *
 * Adapters (v1 hooks + SDK client, v2 event stream) translate whatever the host emits into
 * `Signal`s; the core decides and acts only through `HostPort`. Nothing in here knows which
 * OpenCode generation is running.
 */

import type { JournalEntry } from "./journal.ts"
import type { TodoItem, TranscriptMessage } from "./transcript.ts"

export type ModelRef = { providerID: string; modelID: string }

/** Where a genuine user's last turn pointed, so a continue resumes with the same setup. */
export type TurnSetup = { agent?: string; model?: ModelRef }

export type Signal =
  /**
   * Any host event for the session, modelled or not: transport liveness. `event`: the host's
   * name for it, which the progress ceiling's stall log quotes; `progress`: a step began or
   * ended, semantic progress without model output (it does not end a stall episode).
   */
  | { type: "activity"; sessionID: string; event?: string; progress?: boolean }
  /**
   * The model produced output (text, reasoning, a tool call): progress, not just liveness.
   * For streamed text or reasoning, `part` names the part and `delta` is the new text or `text`
   * the part's whole text so far (the repetition detector reads them; nothing is copied).
   */
  | { type: "modelOutput"; sessionID: string; part?: string; delta?: string; text?: string }
  /** `inferred`: not reported by the host but concluded by session discovery from a listing. */
  | { type: "busy"; sessionID: string; inferred?: boolean }
  | { type: "idle"; sessionID: string }
  /** `args` (when the host gives them) feed the live tool-loop fingerprint. */
  | { type: "toolStart"; sessionID: string; callID: string; tool: string; args?: unknown }
  /**
   * A tool call ended. From the host's record of the call (not the v1 `tool.execute.after`
   * hook, which fires for a command that exits non-zero too): `tool` as the model called it,
   * `outcome`, and for a failure or a denial the host's error text, capped (MAX_TOOL_ERROR_CHARS).
   */
  | { type: "toolEnd"; sessionID: string; callID: string; tool?: string; outcome?: ToolOutcome; error?: string }
  /** A user message entered the session; `genuine` is false for the plugin's own prompts. */
  | { type: "userMessage"; sessionID: string; genuine: boolean; setup?: TurnSetup }
  /** The agent/model of the current genuine turn, learnt after its message (v2 step start). */
  | { type: "turnSetup"; sessionID: string; setup: TurnSetup }
  /**
   * The running turn was aborted (v1 MessageAbortedError, v2 execution.interrupted).
   * `settledLate` (the core's own, never an adapter's): the verdict on an interruption seen
   * earlier while our abort was unanswered; the run it ended was accounted for then.
   */
  | { type: "interrupted"; sessionID: string; byUser?: boolean; settledLate?: boolean }
  | { type: "error"; sessionID: string; name: string; message: string; status?: number; retryAfterMs?: number }
  /**
   * The host itself is retrying the provider call: not a stall, and not ours to retry.
   * `retryInMs`: how far ahead the host put the retry, when it says; `message`/`status`: why.
   */
  | { type: "retryScheduled"; sessionID: string; retryInMs?: number; message?: string; status?: number; name?: string }
  /**
   * Running output token total of one assistant message (or of the session when no id is
   * known); `contextTokens` is how much of the context window that message used.
   */
  | { type: "usage"; sessionID: string; tokens: number; messageID?: string; contextTokens?: number }
  | { type: "sessionCreated"; sessionID: string; parentID?: string }
  | { type: "sessionDeleted"; sessionID: string }
  /** A question, permission or form is open (`open: true`) or answered; `key` pairs them. */
  | { type: "awaitingUser"; sessionID: string; key: string; open: boolean }
  /** The session's todo list changed (v1 `todo.updated`); v2 reads it from history instead. */
  | { type: "todos"; sessionID: string; todos: TodoItem[] }
  /**
   * The host compacts the session's context: it began, ended (the summary is in place), or
   * failed. Whoever asked for it (the host after an overflow, the user, the plugin).
   */
  | { type: "compaction"; sessionID: string; phase: "started" | "ended" | "failed" }
  /**
   * The user reverted the session's newest messages. `staged`: the host marked the session
   * reverted to `messageID` (1.x `session.revert` set, 2.x `session.revert.staged`): the user's
   * own hand, as ESC is. `removed`: the reverted messages left the history (1.x
   * `message.removed`, 2.x `session.revert.committed`), which the host does as the user's next
   * message goes in. `messageID` absent: the host's shape named no message (malformed).
   */
  | { type: "reverted"; sessionID: string; phase: "staged" | "removed"; messageID?: string }

/**
 * How a tool call ended, as the host reported it: `ok`; `failed` (the tool errored, or a command
 * exited non-zero); `denied` (the user refused its permission, or a rule of theirs did: their
 * hand, not a failure); `aborted` (the run was stopped under it, by ESC or by us: no verdict on
 * the tool); `unavailable` (no such tool: the unknown-tools path's).
 */
export type ToolOutcome = "ok" | "failed" | "denied" | "aborted" | "unavailable"

/** The most of a tool's error text a signal carries. */
export const MAX_TOOL_ERROR_CHARS = 300

/**
 * How a command that exited non-zero reads as a `toolEnd` error: this, its code, then the last
 * line it printed. Two such failures with the same text failed "the same way".
 */
export const EXIT_CODE_ERROR = "exit code "

export type SignalType = Signal["type"]

export type SendKind =
  /** Stall and failure continues: a visible user message on every host. */
  | "continue"
  /** Feature corrections (tool-as-text, unknown tool, ...): may take a quieter channel on v2. */
  | "correction"

export type SendRequest = {
  sessionID: string
  text: string
  kind: SendKind
  setup?: TurnSetup
  /**
   * Why the send must not go out any more (the user pressed ESC, a pause, a question), or
   * undefined. A port that awaits something before its host call (2.x reads the history
   * first) asks again just before making it.
   */
  stillWanted?: () => string | undefined
  /**
   * Which recovery path sends it (its label) and the session's recovery count when it goes
   * out: with the session and what the session last showed, a host that takes caller-chosen
   * message ids (2.x) derives one from them, so two live instances making the same recovery
   * send one message between them (the host refuses the second as a conflict).
   */
  path?: string
  attempt?: number
  /**
   * `setup.model` is a fallback model, not the one the user picked: a host whose model belongs
   * to the session (2.x) switches the session to it before the prompt.
   */
  onFallback?: boolean
}

export type LogLevel = "debug" | "info" | "warn" | "error"

/** A short notice in the terminal UI (1.x `tui.showToast`): what the user is told unasked (notices.ts). */
export type Toast = { title: string; message: string; variant: "info" | "warning"; durationMs: number }

/**
 * Everything the core may ask of the host. Every call may reject, throw, hang or return
 * junk: the engine bounds each by `sendTimeoutMs` and serialises them per session.
 */
export interface HostPort {
  /** Sends a prompt that the host marks as the plugin's own (never a genuine user turn). */
  send(request: SendRequest): Promise<void>
  abort(sessionID: string): Promise<void>
  /**
   * Optional: stores one settled intervention in the user's history (journal.ts). Must never
   * throw and never block; a host without a history is simply not told.
   */
  journal?(entry: JournalEntry): void
  /**
   * Optional: shows a toast in the host's terminal UI, a no-op where none is attached. A host
   * without a toast API (2.x) is simply not asked: its history and status say the same.
   */
  toast?(toast: Toast): Promise<void>
  /** Writes one log line to the host's log. Must never throw and never block. */
  log(level: LogLevel, message: string, extra?: Record<string, unknown>): void
  /** The newest `limit` messages of a session, oldest first, normalized. */
  readMessages(sessionID: string, limit: number): Promise<TranscriptMessage[]>
  /** The session's todo list; undefined when the host has none or it could not be read. */
  readTodos(sessionID: string): Promise<TodoItem[] | undefined>
  /** Ids of sessions the host reports as running (for discovery of sessions missed by events). */
  listBusySessions(): Promise<string[]>
  /** Tool names as the model must call them. */
  toolNames(): Promise<string[]>
  /** Native compaction of a session (v1 summarize, v2 compact). */
  compact(sessionID: string, setup?: TurnSetup): Promise<void>
  /** Runs a registered slash command in a session (not as prompt text). */
  command(sessionID: string, name: string, args: string): Promise<void>
  pluginNames(): Promise<string[]>
  /** Context and output limits of a model (and its input cap, where one is set), when the host knows them. */
  modelLimits(model: ModelRef): Promise<{ context: number; output: number; input?: number } | undefined>
  /** Optional: a host without such a list is simply not asked. */
  listModels?(): Promise<ModelRef[]>
  /**
   * Puts a session back on the user's model after a run of ours on a fallback model, where the
   * model belongs to the session (2.x switchModel); absent where each prompt names its model.
   */
  restoreModel?(sessionID: string, model: ModelRef): Promise<void>
  /**
   * Names of the host's subagent tool: an open call of one in a parent is what orphan-parent
   * and stuck-subagent recovery look for (1.x `task`, 2.x `subagent`).
   */
  readonly subagentTools: readonly string[]
}
