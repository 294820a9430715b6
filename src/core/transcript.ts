/**
 * The normalized shape of a session's recent history, as every detector and the judge read
 * it. Both adapters translate their host's messages into this (v1 `info`+`parts`, v2 typed
 * messages with `content[]`), so no detector ever knows which host it runs on.
 */

/**
 * `streaming` (2.x): the model was still writing the call's input, or the step failed while it
 * did. A call in progress or cut off, never one waiting on the user (unlike 1.x `pending`).
 */
export type ToolPartStatus = "pending" | "streaming" | "running" | "completed" | "error"

export type TranscriptToolPart = {
  kind: "tool"
  callID: string
  /** The tool name as the model called it (v1 `part.tool`, v2 `part.name`). */
  tool: string
  status: ToolPartStatus
  input?: unknown
  /** Error text for `error` parts, or the host's message for an unavailable tool. */
  error?: string
  output?: string
}

export type TranscriptPart =
  | { kind: "text"; text: string; synthetic?: boolean }
  | { kind: "reasoning"; text: string }
  | TranscriptToolPart

export type TranscriptMessage = {
  id: string
  role: "user" | "assistant"
  parts: TranscriptPart[]
  /** True for the plugin's own prompts (never a genuine user turn). */
  own?: boolean
  /**
   * The message belongs to an exchange of ours that is no turn of the model's, as the host
   * adapter knows it: "command", the 1.x `/auto-resume` command's message and the answer of its
   * local reply model (host/v1/command-model.ts). Every reader of the history skips such a turn.
   */
  ours?: "command"
  /** Assistant only: why the model stopped, if it finished. */
  finish?: string
  /** Assistant only: error name when the turn ended in error (e.g. MessageAbortedError). */
  errorName?: string
  outputTokens?: number
  reasoningTokens?: number
  createdAt?: number
  completedAt?: number
  agent?: string
  model?: { providerID: string; modelID: string }
}

export type TodoStatus = "pending" | "in_progress" | "completed" | "cancelled"

export type TodoItem = { content: string; status: TodoStatus | string; priority?: string }

/** Cap on how much of one message's text any detector looks at (see detect/README). */
export const MAX_SCANNED_TEXT = 16_384
