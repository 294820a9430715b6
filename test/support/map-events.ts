/**
 * Whole-event mappings for tests and benchmarks. The adapters split them for speed (1.x maps
 * streaming events without an array; 2.x decodes and filters by location first), so these
 * compose the same exported pieces the adapters call, and nothing else.
 */
import type { Signal } from "../../src/core/port.ts"
import { mapOtherEvent, mapStreamingEvent, type MessageRoles } from "../../src/host/v1/events.ts"
import { decodeV2Event, mapDecoded, type ToolNamesByCall } from "../../src/host/v2/events.ts"
import { RunMemory } from "../../src/host/v2/run-memory.ts"

/** A 1.x event to its signals, as the 1.x event hook maps it. */
export function mapV1Event(event: unknown, roles: MessageRoles, wallNow: () => number): readonly Signal[] {
  const out: Signal[] = []
  // Model output reaches the engine with no signal object (engine.output); here it becomes the one its handle() takes.
  const streamed = mapStreamingEvent(event, roles, (sessionID, part, delta, text) => {
    out.push(part === undefined ? { type: "modelOutput", sessionID } : { type: "modelOutput", sessionID, part, delta, text })
  })
  if (streamed !== undefined) return streamed === null ? out : [streamed]
  return mapOtherEvent(event, roles, wallNow)
}

/** A 2.x event to its signals, as the 2.x adapter maps it (location filtering aside). */
export function mapV2Event(raw: unknown, tools: ToolNamesByCall, wallNow: () => number, memory = new RunMemory()): Signal[] {
  const event = decodeV2Event(raw, memory)
  if (!event?.sessionID) return []
  return mapDecoded(event, event.sessionID, tools, wallNow, memory)
}
