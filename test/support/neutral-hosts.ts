/**
 * One host-neutral surface over the two fake hosts, for timelines written once and played
 * through both adapters: each method plays what the host itself would emit, in that host's
 * own shapes.
 *
 * - 1.x (test/unit/v1/rig.ts): the subagent call is the `task` tool through
 *   tool.execute.before/after, a child is `session.created` with `info.parentID`, an abort
 *   reports MessageAbortedError and goes idle, as 1.18 was measured to do.
 * - 2.x (test/support/fake-v2-host.ts): the call is `session.tool.input.started` +
 *   `session.tool.called`, a child is `session.created` with `data.parentID`, the interrupt
 *   ends the run.
 * Todos: 1.x reports a `todowrite` call's list in `todo.updated`; 2.x has only the message log,
 * where the newest completed `todowrite` part is the list.
 */
import { FakeV1Host } from "../unit/v1/rig.ts"
import { makeV2 } from "../unit/v2/harness.ts"

export type Todo = { content: string; status: string }

export interface NeutralHost {
  readonly name: "v1" | "v2"
  /** The name the host gives its subagent tool. */
  readonly subagentTool: string
  userTurn(sessionID: string, text?: string): void
  toolStart(sessionID: string, callID: string, tool: string): void
  toolEnd(sessionID: string, callID: string, tool: string): void
  /** The host creates a child session under `parentID` and starts its first run. */
  childStarts(childID: string, parentID: string): void
  /** The host deletes the session (`session.deleted`). */
  deleteSession(sessionID: string): void
  delta(sessionID: string): void
  /** The run ends normally with some text. */
  finishRun(sessionID: string, text?: string): void
  userEsc(sessionID: string): void
  askPermission(sessionID: string, id: string): void
  /** The model writes its todo list (a `todowrite` call in the running turn). */
  todowrite(sessionID: string, todos: Todo[]): void
  /** The list the plugin will read next changes while the session is idle. */
  todosChangeWhileIdle(sessionID: string, todos: Todo[]): void
  /** A run the host starts by itself (no user message). */
  hostRunStarts(sessionID: string): void
  pause(sessionID: string): void
  /** Moves the simulated clock in steps, letting promise callbacks run between them. */
  advance(ms: number, stepMs?: number): Promise<void>
  /** Prompts (any kind) the plugin sent to the session. */
  promptsTo(sessionID: string): number
  abortsOf(sessionID: string): number
  /** The text of every prompt the plugin sent to the session, oldest first. */
  promptTexts(sessionID: string): string[]
  logged(pattern: RegExp): boolean
  stop(): void
}

/**
 * The 2.x subagent tool is `subagent` (host notes, correction 2); the core's list of subagent
 * tool names is the one authority on what counts as such a call, so a 2.x timeline uses the
 * 2.x name once the core knows it, the 1.x one until then.
 */
const V2_SUBAGENT_TOOL = "subagent"

export function v1Host(options: Record<string, unknown> = {}): NeutralHost {
  const host = new FakeV1Host()
  const aborts: string[] = []
  const abort = host.client.session.abort
  host.client.session.abort = async (o: { path: { id: string } }) => {
    aborts.push(o.path.id)
    // 1.18 reports the aborted message's error before the session goes idle.
    host.event("session.error", { sessionID: o.path.id, error: { name: "MessageAbortedError", data: { message: "Aborted" } } })
    return abort(o)
  }
  const plugin = host.start(options)
  let todoCalls = 0
  const texts = (sessionID: string) =>
    host.prompts.filter((p) => p.sessionID === sessionID).map((p) => p.parts.map((part) => String(part.text ?? "")).join(""))
  return {
    name: "v1",
    subagentTool: "task",
    userTurn: (sessionID, text) => host.userMessage(sessionID, [{ type: "text", text: text ?? "please do the task" }], { agent: "build", model: { providerID: "openai", modelID: "gpt-x" } }),
    toolStart(sessionID, callID, tool) {
      void plugin.hooks["tool.execute.before"]?.({ tool, sessionID, callID } as never, { args: {} } as never)
    },
    toolEnd(sessionID, callID, tool) {
      void plugin.hooks["tool.execute.after"]?.({ tool, sessionID, callID, args: {} } as never, { title: "", output: "done", metadata: {} } as never)
    },
    childStarts(childID, parentID) {
      host.event("session.created", { info: { id: childID, parentID, title: "subtask" } })
      // The task tool prompts the child with the parent agent's instructions.
      host.userMessage(childID, [{ type: "text", text: "do the subtask" }], { agent: "general" })
    },
    deleteSession: (sessionID) => host.event("session.deleted", { info: { id: sessionID } }),
    delta: (sessionID) => host.delta(sessionID),
    finishRun: (sessionID, text) => host.finishRun(sessionID, { text: text ?? "subtask done: wrote the file." }),
    userEsc(sessionID) {
      host.event("session.error", { sessionID, error: { name: "MessageAbortedError", data: { message: "Aborted" } } })
      host.endRun(sessionID)
    },
    askPermission: (sessionID, id) => host.event("permission.asked", { id, sessionID, permission: "bash", patterns: [] }),
    todowrite(sessionID, todos) {
      const callID = `call_todo_${++todoCalls}`
      void plugin.hooks["tool.execute.before"]?.({ tool: "todowrite", sessionID, callID } as never, { args: { todos } } as never)
      host.event("todo.updated", { sessionID, todos })
      void plugin.hooks["tool.execute.after"]?.({ tool: "todowrite", sessionID, callID, args: { todos } } as never, { title: "", output: "", metadata: {} } as never)
    },
    todosChangeWhileIdle: (sessionID, todos) => host.event("todo.updated", { sessionID, todos }),
    hostRunStarts: (sessionID) => host.startRun(sessionID),
    pause: (sessionID) => host.pauses.pause(sessionID),
    advance: (ms, stepMs) => host.advance(ms, stepMs),
    promptsTo: (sessionID) => host.prompts.filter((p) => p.sessionID === sessionID).length,
    abortsOf: (sessionID) => aborts.filter((id) => id === sessionID).length,
    promptTexts: texts,
    logged: (pattern) => host.logged(pattern),
    stop: () => host.stopAll(),
  }
}

export function v2Host(options: Record<string, unknown> = {}): NeutralHost {
  const rig = makeV2({ options })
  const host = rig.host
  let todoCalls = 0
  const calls = (method: string, sessionID: string) =>
    host.callsTo(method).filter((c) => (c.args[0] as { sessionID?: string } | undefined)?.sessionID === sessionID)
  const prompts = (sessionID: string) => [...calls("session.prompt", sessionID), ...calls("session.synthetic", sessionID)].sort((a, b) => a.at - b.at)
  return {
    name: "v2",
    subagentTool: V2_SUBAGENT_TOOL,
    userTurn: (sessionID, text) => void host.userTurn(sessionID, text),
    toolStart: (sessionID, callID, tool) => host.toolStart(sessionID, callID, tool, tool === V2_SUBAGENT_TOOL ? { agent: "general", description: "subtask", prompt: "do the subtask" } : {}),
    toolEnd: (sessionID, callID) => host.toolEnd(sessionID, callID),
    childStarts(childID, parentID) {
      host.emit("session.created", { sessionID: childID, parentID, title: "subtask", agent: "general" })
      host.userTurn(childID, "do the subtask")
    },
    deleteSession: (sessionID) => host.emit("session.deleted", { sessionID }),
    delta: (sessionID) => host.textDelta(sessionID),
    finishRun(sessionID, text) {
      host.textDelta(sessionID, text ?? "subtask done: wrote the file.")
      host.finishRun(sessionID)
    },
    userEsc: (sessionID) => host.userEsc(sessionID),
    askPermission: (sessionID, id) => host.askPermission(sessionID, id),
    todowrite(sessionID, todos) {
      const callID = `call_todo_${++todoCalls}`
      host.toolStart(sessionID, callID, "todowrite", { todos })
      host.toolEnd(sessionID, callID, "")
    },
    todosChangeWhileIdle(sessionID, todos) {
      // The newest todowrite part in the log is the list: rewrite its input.
      for (const message of [...(host.history.get(sessionID) ?? [])].reverse()) {
        const parts = (message.content ?? []) as { type?: string; name?: string; state: { input: unknown } }[]
        const part = [...parts].reverse().find((p) => p.type === "tool" && p.name === "todowrite")
        if (part) return void (part.state.input = { todos })
      }
    },
    hostRunStarts: (sessionID) => host.startRun(sessionID),
    pause: (sessionID) => rig.pauses.pause(sessionID),
    advance: (ms, stepMs) => rig.advance(ms, stepMs),
    promptsTo: (sessionID) => prompts(sessionID).length,
    abortsOf: (sessionID) => calls("session.interrupt", sessionID).length,
    promptTexts: (sessionID) => prompts(sessionID).map((c) => String((c.args[0] as { text?: unknown }).text ?? "")),
    logged: (pattern) => rig.logged(pattern),
    stop: () => rig.instance.stop(),
  }
}

export const HOSTS: readonly [string, (options?: Record<string, unknown>) => NeutralHost][] = [
  ["v1", v1Host],
  ["v2", v2Host],
]
