/**
 * What the pause marker is: where it lives, its layout, and turning its text into a state
 * and back. Pure apart from reading the environment for the location; the I/O is in
 * marker-file.ts.
 *
 * Location: `$XDG_CONFIG_HOME/opencode/auto-resume.paused`, or `~/.config/opencode/...` when
 * XDG_CONFIG_HOME is unset or not absolute.
 *
 * Format (UTF-8 JSON, one line, newline at the end):
 *
 *     {"version":1,"all":false,"sessions":["ses_..."]}
 *
 * - `version`: always 1 for this layout; anything else is a foreign file.
 * - `all`: true pauses every session.
 * - `sessions`: ids of individually paused sessions, oldest first, at most
 *   MAX_PAUSED_SESSIONS, each valid per session-id.ts.
 *
 * A file that is not valid JSON, not this layout, too large, or holds invalid ids reads as
 * empty (bad entries dropped) with a `problem` description; callers warn once and rewrite it.
 */
import os from "node:os"
import path from "node:path"
import { PauseFileError } from "./marker-io.ts"
import { MAX_SESSION_ID_LENGTH, isValidSessionId, printable, sessionIdProblem } from "./session-id.ts"

export const PAUSE_FILE_NAME = "auto-resume.paused"
export const PAUSE_FILE_VERSION = 1
/** Individually paused sessions kept at most; a pause beyond this is refused. */
export const MAX_PAUSED_SESSIONS = 1000
/** Larger files are not read at all (a well-formed full file is about 140 KiB). */
export const MAX_PAUSE_FILE_BYTES = 256 * 1024

export type PauseState = { all: boolean; sessions: string[] }

export type ReadResult = {
  state: PauseState
  /** Set when the file was malformed or foreign: it was read as `state` and needs a rewrite. */
  problem?: string
}

export function emptyPauseState(): PauseState {
  return { all: false, sessions: [] }
}

/** Where the marker lives for this environment. */
export function pauseFilePath(env: Record<string, string | undefined> = process.env, homedir: () => string = os.homedir): string {
  const xdg = env.XDG_CONFIG_HOME
  const base = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME && path.isAbsolute(env.HOME) ? env.HOME : homedir(), ".config")
  return path.join(base, "opencode", PAUSE_FILE_NAME)
}

/** Reads the marker's text. Never throws: whatever is wrong ends up in `problem`. */
export function parsePauseFile(text: string): ReadResult {
  if (text.trim() === "") return { state: emptyPauseState() }
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch {
    return { state: emptyPauseState(), problem: "it is not valid JSON" }
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return { state: emptyPauseState(), problem: "it is not a pause file (not a JSON object)" }
  }
  const obj = data as Record<string, unknown>
  if (obj.version !== PAUSE_FILE_VERSION) {
    return { state: emptyPauseState(), problem: `it is not a version ${PAUSE_FILE_VERSION} pause file (version ${printable(obj.version)})` }
  }
  const all = obj.all ?? false
  const sessions = obj.sessions ?? []
  if (typeof all !== "boolean" || !Array.isArray(sessions)) {
    return { state: emptyPauseState(), problem: "it is not a pause file (\"all\" must be a boolean and \"sessions\" a list)" }
  }
  const kept: string[] = []
  const seen = new Set<string>()
  let invalid = 0
  let overflow = 0
  for (const id of sessions) {
    if (!isValidSessionId(id)) {
      invalid++
      continue
    }
    if (seen.has(id)) continue
    if (kept.length >= MAX_PAUSED_SESSIONS) {
      overflow++
      continue
    }
    seen.add(id)
    kept.push(id)
  }
  const problems: string[] = []
  if (invalid) problems.push(`${invalid} invalid session id(s) dropped`)
  if (overflow) problems.push(`${overflow} id(s) beyond the limit of ${MAX_PAUSED_SESSIONS} dropped`)
  return { state: { all, sessions: kept }, problem: problems.length ? problems.join("; ") : undefined }
}

export function serializePauseState(state: PauseState): string {
  return `${JSON.stringify({ version: PAUSE_FILE_VERSION, all: state.all, sessions: state.sessions })}\n`
}

/** Checks a state before it is written: valid ids, no duplicates, within the cap. */
export function checkedState(state: PauseState): PauseState {
  const sessions: string[] = []
  const seen = new Set<string>()
  for (const id of state.sessions) {
    const problem = sessionIdProblem(id)
    if (problem) throw new PauseFileError(`${problem}: ${printable(id, MAX_SESSION_ID_LENGTH)}`)
    if (seen.has(id)) continue
    seen.add(id)
    sessions.push(id)
  }
  if (sessions.length > MAX_PAUSED_SESSIONS) {
    throw new PauseFileError(`too many paused sessions (limit ${MAX_PAUSED_SESSIONS}); resume some first, or pause all at once`)
  }
  return { all: state.all === true, sessions }
}
