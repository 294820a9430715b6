/**
 * What both hosts' payloads turn into the same way: capped part texts, text and reasoning
 * parts, a stored message's token counts and times, a model reference, a turn's agent and model.
 */
import type { ModelRef, TurnSetup } from "../core/port.ts"
import type { TranscriptMessage, TranscriptPart } from "../core/transcript.ts"
import { get, num, str } from "./shape.ts"

/** The tail of a part's text that is kept: detectors read a capped tail anyway. */
const MAX_PART_TEXT = 65_536

export function clip(text: string | undefined): string {
  return (text ?? "").slice(-MAX_PART_TEXT)
}

/** A `text` or `reasoning` part (the same shape on both hosts); undefined for any other type. */
export function prosePart(type: string | undefined, part: unknown): TranscriptPart | undefined {
  if (type === "text") return { kind: "text", text: clip(str(get(part, "text"))), synthetic: get(part, "synthetic") === true || undefined }
  if (type === "reasoning") return { kind: "reasoning", text: clip(str(get(part, "text"))) }
  return undefined
}

export function modelOf(providerID: string | undefined, modelID: string | undefined): ModelRef | undefined {
  return providerID && modelID ? { providerID, modelID } : undefined
}

export function turnSetupOf(agent: string | undefined, providerID: string | undefined, modelID: string | undefined): TurnSetup {
  return { agent, model: modelOf(providerID, modelID) }
}

/** Token counts and times of a stored message (`tokens`, `time`: the same fields on both hosts). */
export function messageStats(info: unknown): Pick<TranscriptMessage, "outputTokens" | "reasoningTokens" | "createdAt" | "completedAt"> {
  return {
    outputTokens: num(get(info, "tokens", "output")),
    reasoningTokens: num(get(info, "tokens", "reasoning")),
    createdAt: num(get(info, "time", "created")),
    completedAt: num(get(info, "time", "completed")),
  }
}
