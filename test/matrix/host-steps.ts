/**
 * The step dispatcher both drivers share: each driver supplies what a step means on its host;
 * the passing of time (`wait`, `stream`) and the settling after every step are done here once.
 */
import { advance, flush } from "./host-common.ts"
import type { FailKind, Step, Todo, Who } from "./steps.ts"

export type { Who } from "./steps.ts"

type Maybe = void | Promise<void>

export type HostSteps = {
  user(who: Who, step: Extract<Step, { do: "user" }>): Maybe
  text(who: Who, text: string): Maybe
  reasoning(who: Who, text: string): Maybe
  tokens(who: Who, output: number, input: number): Maybe
  toolStart(who: Who, callID: string, tool: string, input: unknown): Maybe
  toolEnd(who: Who, callID: string, output: string | undefined, error: string | undefined): Maybe
  badTool(who: Who, callID: string, name: string): Maybe
  todos(who: Who, todos: Todo[]): Maybe
  nextStep(who: Who): Maybe
  end(who: Who, finish?: string): Maybe
  esc(who: Who): Maybe
  fail(who: Who, kind: FailKind): Maybe
  providerDown(who: Who, kind: FailKind, ms: number | undefined): Maybe
  hostStops(who: Who, reason: "inactivity" | "superseded"): Maybe
  abortReported(who: Who): Maybe
  overflow(who: Who): Maybe
  compacted(who: Who): Maybe
  ask(who: Who, kind: "question" | "permission", id: string): Maybe
  answer(who: Who, kind: "question" | "permission", id: string): Maybe
  spawn(): Maybe
  taskComplete(who: Who, evidence: string | undefined): Maybe
  pauseCommand(arg: string): Maybe
  cliPause(arg: "off" | "on", all: boolean): Maybe
  cliGoal(text: string): Maybe
  secondInstance(): Maybe
  secondProcess(): Maybe
  hostRun(): Maybe
  hostRunsUnseen(): Maybe
  /** One piece of live model output (used by `stream`). */
  stream(who: Who): Maybe
  /** One event of a live run that is no progress (used by `heartbeat`). */
  heartbeat(who: Who): Maybe
}

export function common(h: HostSteps): (step: Step) => Promise<void> {
  return async (step) => {
    const who: Who = ("in" in step ? step.in : undefined) ?? "main"
    switch (step.do) {
      case "user":
        await h.user(who, step)
        break
      case "text":
        await h.text(who, step.text)
        break
      case "reasoning":
        await h.reasoning(who, step.text)
        break
      case "tokens":
        await h.tokens(who, step.output, step.input ?? 0)
        break
      case "toolStart":
        await h.toolStart(who, step.callID, step.tool, step.input ?? {})
        break
      case "toolEnd":
        await h.toolEnd(who, step.callID, step.output, step.error)
        break
      case "badTool":
        await h.badTool(who, step.callID, step.name)
        break
      case "todos":
        await h.todos(who, step.todos)
        break
      case "nextStep":
        await h.nextStep(who)
        break
      case "end":
        await h.end(who, step.finish)
        break
      case "esc":
        await h.esc(who)
        break
      case "fail":
        await h.fail(who, step.error)
        break
      case "providerDown":
        await h.providerDown(who, step.error, step.ms)
        break
      case "hostStops":
        await h.hostStops(who, step.reason)
        break
      case "abortReported":
        await h.abortReported(who)
        break
      case "overflow":
        await h.overflow(who)
        break
      case "compacted":
        await h.compacted(who)
        break
      case "ask":
        await h.ask(who, step.kind, step.id)
        break
      case "answer":
        await h.answer(who, step.kind, step.id)
        break
      case "spawn":
        await h.spawn()
        break
      case "taskComplete":
        await h.taskComplete(who, step.evidence)
        break
      case "pauseCommand":
        await h.pauseCommand(step.arg)
        break
      case "cliPause":
        await h.cliPause(step.arg, step.all === true)
        break
      case "cliGoal":
        await h.cliGoal(step.text)
        break
      case "secondInstance":
        await h.secondInstance()
        break
      case "secondProcess":
        await h.secondProcess()
        break
      case "hostRun":
        await h.hostRun()
        break
      case "hostRunsUnseen":
        await h.hostRunsUnseen()
        break
      case "wait":
        await advance(step.ms)
        break
      case "stream":
      case "heartbeat": {
        const every = step.every ?? 10_000
        for (let left = step.ms; left > 0; left -= every) {
          await advance(Math.min(every, left))
          await (step.do === "stream" ? h.stream(who) : h.heartbeat(who))
        }
        break
      }
    }
    await flush()
  }
}
