/**
 * What both hosts' payloads turn into the same way: capped part texts, text and reasoning
 * parts, a model reference, a turn's agent and model.
 */
import type { ModelRef, TurnSetup } from "../core/port.ts"
import type { TranscriptPart } from "../core/transcript.ts"
import { get, str } from "./shape.ts"

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
