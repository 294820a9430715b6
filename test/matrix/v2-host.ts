/**
 * The matrix on OpenCode 2.x: the plugin's default export loaded through `setup(ctx)` on the
 * fake host of v2-world.ts, and what each host-neutral step means there: a question is a form
 * (`form.created { form: { id, sessionID } }`, `form.replied { id }`), the subagent tool is
 * `subagent`, a tool's result is in `content`, a failed run's error is `{ type, message,
 * status? }`, todos are the newest completed `todowrite` call (2.x has no todo API).
 */
import { readFileSync } from "node:fs"
import plugin from "../../src/index.ts"
import { flush, settle, type MatrixHost } from "./host-common.ts"
import { common } from "./host-steps.ts"
import { SUBAGENT_TOOL, USER_AGENT, USER_MODEL, type Step } from "./steps.ts"
import { createV2World, V2_ERRORS, type Obj } from "./v2-world.ts"

export async function startV2Host(options: Record<string, unknown>): Promise<MatrixHost> {
  const w = createV2World(options)
  const { sessions, acts, setups, tools, commands, id, emit, userTurn, startRun, endRun, text, assistantOf } = w
  const cleanups: (() => void)[] = []
  const load = async (ctx = w.ctx) => {
    const cleanup = plugin.setup(ctx)
    if (cleanup) cleanups.push(cleanup)
    await flush(10)
  }
  await load()

  const steps = common({
    user: (who, s) => {
      const sessionID = sessions[who]
      const [p, m] = (s.model ?? USER_MODEL).split("/") as [string, string]
      setups.set(sessionID, { agent: s.agent ?? USER_AGENT, providerID: p, modelID: m })
      userTurn(sessionID, { id: id("msg"), type: "user", text: s.text ?? "please do the task", time: { created: Date.now() } }, false)
    },
    text: (who, t) => text(sessions[who], t),
    reasoning: (who, t) => text(sessions[who], t, "reasoning"),
    tokens: (who, output, input) => {
      const assistant = assistantOf(who)
      if (!assistant) return
      assistant.tokens = { input, output, reasoning: 0, cache: { read: 0, write: 0 } }
      emit("session.usage.updated", { sessionID: sessions[who], assistantMessageID: assistant.id, cost: 0, tokens: assistant.tokens })
    },
    toolStart: (who, callID, neutral, input) => {
      const sessionID = sessions[who]
      const name = neutral === SUBAGENT_TOOL ? "subagent" : neutral
      const assistant = assistantOf(who)
      assistant?.content.push({ type: "tool", id: callID, name, state: { status: "running", input }, time: { created: Date.now() } })
      emit("session.tool.input.started", { sessionID, assistantMessageID: assistant?.id, id: callID, name })
      emit("session.tool.input.ended", { sessionID, assistantMessageID: assistant?.id, id: callID })
      emit("session.tool.called", { sessionID, assistantMessageID: assistant?.id, id: callID, input, executed: false })
    },
    toolEnd: (who, callID, output, error) => {
      const sessionID = sessions[who]
      const assistant = assistantOf(who)
      const part = assistant?.content.find((p: Obj) => p.id === callID)
      const content = [{ type: "text", text: output ?? "done" }]
      if (part) part.state = error ? { status: "error", input: part.state.input, error: { message: error } } : { status: "completed", input: part.state.input, content }
      if (error) emit("session.tool.failed", { sessionID, assistantMessageID: assistant?.id, id: callID, error: { message: error }, executed: true })
      else emit("session.tool.success", { sessionID, assistantMessageID: assistant?.id, id: callID, content, executed: true })
    },
    nextStep: (who) => w.nextStep(sessions[who]),
    badTool: (who, callID, name) => {
      const sessionID = sessions[who]
      const assistant = assistantOf(who)
      const error = { type: "tool.unavailable", message: `Model tried to call unavailable tool '${name}'` }
      assistant?.content.push({ type: "tool", id: callID, name, state: { status: "error", input: {}, error }, time: { created: Date.now() } })
      emit("session.tool.input.started", { sessionID, assistantMessageID: assistant?.id, id: callID, name })
      emit("session.tool.failed", { sessionID, assistantMessageID: assistant?.id, id: callID, error, executed: false })
    },
    todos: (who, todos) => {
      // 2.x has no todo API: a todo plugin's completed `todowrite` call is the list.
      const sessionID = sessions[who]
      const assistant = assistantOf(who)
      const callID = id("call")
      const content = [{ type: "text", text: `${todos.length} todos` }]
      assistant?.content.push({ type: "tool", id: callID, name: "todowrite", state: { status: "completed", input: { todos }, content }, time: { created: Date.now() } })
      emit("session.tool.input.started", { sessionID, assistantMessageID: assistant?.id, id: callID, name: "todowrite" })
      emit("session.tool.called", { sessionID, assistantMessageID: assistant?.id, id: callID, input: { todos }, executed: false })
      emit("session.tool.success", { sessionID, assistantMessageID: assistant?.id, id: callID, content, executed: true })
    },
    end: (who, finish) => endRun(sessions[who], "succeeded", undefined, finish),
    esc: (who) => endRun(sessions[who], "interrupted"),
    fail: (who, kind) => endRun(sessions[who], "failed", V2_ERRORS[kind]),
    providerDown: (who, kind, ms) => w.providerDown(sessions[who], V2_ERRORS[kind]!, ms),
    hostStops: (who, reason) => endRun(sessions[who], "interrupted", undefined, "stop", reason),
    abortReported: (who) => w.abortReported(sessions[who]),
    // A 2.x build that compacts by itself: the failed step, then its compaction, within the run.
    overflow: (who) => {
      const sessionID = sessions[who]
      emit("session.step.failed", { sessionID, assistantMessageID: assistantOf(who)?.id, error: V2_ERRORS.contextFull })
      emit("session.compaction.started", { sessionID })
    },
    compacted: (who) => {
      emit("session.compaction.ended", { sessionID: sessions[who] })
      w.nextStep(sessions[who])
    },
    ask: (who, kind, requestID) =>
      kind === "permission"
        ? emit("permission.asked", { id: requestID, sessionID: sessions[who], permission: "bash", patterns: ["rm -rf build"] })
        : emit("form.created", { form: { id: requestID, sessionID: sessions[who], title: "Which one?", fields: [] } }),
    answer: (who, kind, requestID) =>
      kind === "permission" ? emit("permission.replied", { sessionID: sessions[who], requestID, reply: "once" }) : emit("form.replied", { id: requestID, values: {} }),
    spawn: () => emit("session.created", { sessionID: sessions.child, parentID: sessions.main, projectID: "prj", location: { directory: w.directory }, agent: "general" }),
    taskComplete: async (who, evidence) => {
      const tool = tools.find((t) => t.name === "task_complete")
      if (!tool) return
      try {
        const result = await settle(Promise.resolve(tool.execute(evidence === undefined ? {} : { evidence }, { sessionID: sessions[who], agent: USER_AGENT, messageID: "msg_x", id: id("call"), signal: new AbortController().signal, progress: () => undefined })))
        // The host's tool runtime: `output` from a tool with no output schema kills the call.
        if (tool.output === undefined && result && typeof result === "object" && "output" in result) {
          acts.push({ act: "toolAnswer", ok: false, text: "defect: Tool result declared output without an output schema" })
          return
        }
        // The text the model sees is `content`; a failure is flagged in metadata.
        const content = typeof result?.content === "string" ? result.content : (result?.content ?? []).map((c: Obj) => c.text).join("\n")
        acts.push({ act: "toolAnswer", ok: result?.metadata?.error !== true && result?.metadata?.ok !== false, text: content })
      } catch (error) {
        acts.push({ act: "toolAnswer", ok: false, text: `thrown: ${error instanceof Error ? error.message : String(error)}` })
      }
    },
    pauseCommand: async (arg) => {
      const command = commands.find((c) => c.name === "auto-resume")
      if (!command) return
      const messageID = id("msg")
      // The command must end without a model turn: nothing, or { type: "immediate" }. What the
      // user reads comes back as a synthetic note that wakes nothing (recorded as a reply).
      const result = await settle(Promise.resolve(command.execute({ sessionID: sessions.main, prompt: { text: arg }, delivery: "steer", messageID })))
      const type = (result as { type?: unknown } | undefined)?.type
      if (result !== undefined && type !== "immediate") acts.push({ act: "send", in: "main", kind: "command-prompt", text: JSON.stringify(result) })
    },
    cliPause: async (arg, all) => {
      const { main } = await import("../../src/cli/auto-resume-toggle.ts")
      await settle(main([all ? "--all" : sessions.main, arg], { stdout: () => undefined, stderr: () => undefined, env: process.env }))
    },
    cliGoal: async (text) => {
      const { main } = await import("../../src/cli/auto-resume-toggle.ts")
      await settle(main([sessions.main, "goal", ...text.split(" ")], { stdout: () => undefined, stderr: () => undefined, env: process.env }))
    },
    secondInstance: () => load(),
    // Another process: a registry of its own (a scope no other instance uses), the same host and sessions.
    secondProcess: () => load({ ...w.ctx, options: { ...w.ctx.options, registryScope: `${String(w.ctx.options.registryScope)}-other` } }),
    hostRun: () => startRun(sessions.main),
    hostRunsUnseen: () => w.unseen(() => startRun(sessions.main)),
    stream: (who) => text(sessions[who], "Still working. ", "reasoning"),
    // A keep-alive of a live run, no progress. 2.x emits no `session.status` (and the newest
    // build would not deliver it: the adapter does not ask for it), so the keep-alive is the one
    // 2.x has, a tool progress heartbeat, here of a call the run never reported opening.
    heartbeat: (who) => {
      const assistant = assistantOf(who)
      if (assistant) emit("session.tool.progress", { sessionID: sessions[who], assistantMessageID: assistant.id, id: "call_keepalive", metadata: {} })
    },
  })

  const logFile = `${process.env.XDG_STATE_HOME}/opencode-auto-resume/auto-resume.log`
  const readLog = async () => {
    const file = Bun.file(logFile)
    return (await file.exists()) ? await file.text() : ""
  }
  /**
   * The log file is written asynchronously on real I/O: read it until `needle` is there, for up
   * to five seconds of real time (process.hrtime is not faked; Date and performance are), so a
   * loaded machine cannot turn a slow disk into a failed row.
   */
  const waitForLog = async (needle: string): Promise<string> => {
    const deadline = process.hrtime.bigint() + 5_000_000_000n
    let log = await readLog()
    while (!log.includes(needle) && process.hrtime.bigint() < deadline) {
      await flush(2)
      log = await readLog()
    }
    return log
  }

  return {
    name: "v2",
    acts,
    play: (s: Step) => steps(s),
    logs: () => {
      try {
        return readFileSync(logFile, "utf8").split("\n")
      } catch {
        return []
      }
    },
    startupLine: async () => {
      const log = await waitForLog("accepted-but-inert=")
      return log.split("\n").find((l) => l.includes("accepted-but-inert="))
    },
    stop: async () => {
      for (const cleanup of cleanups) cleanup()
      w.close()
      // The log is written asynchronously: its last line must land before the sandbox goes.
      await waitForLog("stopped (cleanup)")
      await flush()
    },
  }
}
