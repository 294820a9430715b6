/**
 * The Host port on OpenCode 1.x: the SDK client the host hands to `server()`.
 * The SDK reports HTTP failures as `{ error }` rather than throwing; we turn them into
 * rejections so the core's bounded-call wrapper sees every failure the same way.
 */
import type { HostPort, LogLevel, SendRequest } from "../port.ts"
import { get } from "../shape.ts"

/** Marks a prompt as the plugin's own, in the stored message and in the chat.message hook. */
export const OWN_PROMPT_METADATA = { autoResume: true } as const

export const LOG_SERVICE = "auto-resume"

/** The part of the SDK client we use; typed loosely because host SDK versions differ. */
export type V1Client = {
  session: {
    promptAsync(options: unknown): Promise<unknown>
    abort(options: unknown): Promise<unknown>
  }
  app: { log(options: unknown): Promise<unknown> }
}

async function unwrap(result: Promise<unknown>, what: string): Promise<unknown> {
  const value = await result
  const error = get(value, "error")
  if (error !== undefined && error !== null) {
    const detail = get(error, "data", "message") ?? get(error, "message") ?? get(error, "name") ?? "error"
    throw new Error(`${what} failed: ${String(detail).slice(0, 200)}`)
  }
  return get(value, "data")
}

export function isOwnPromptPart(part: unknown): boolean {
  return get(part, "metadata", "autoResume") === true
}

export function createV1Port(client: V1Client): HostPort {
  return {
    send(request: SendRequest) {
      const body: Record<string, unknown> = {
        parts: [{ type: "text", text: request.text, synthetic: true, metadata: { ...OWN_PROMPT_METADATA, kind: request.kind } }],
      }
      if (request.setup?.agent) body.agent = request.setup.agent
      if (request.setup?.model) body.model = request.setup.model
      return unwrap(client.session.promptAsync({ path: { id: request.sessionID }, body }), "prompt").then(() => undefined)
    },
    abort(sessionID: string) {
      return unwrap(client.session.abort({ path: { id: sessionID } }), "abort").then(() => undefined)
    },
    log(level: LogLevel, message: string, extra?: Record<string, unknown>) {
      try {
        // 1.18 drops body.service from its log output, so the service is repeated in extra,
        // where it is printed as service=auto-resume and can be filtered on.
        const body = { service: LOG_SERVICE, level, message, extra: { ...extra, service: LOG_SERVICE } }
        void Promise.resolve(client.app.log({ body })).catch(() => undefined)
      } catch {
        // Logging must never fail a caller.
      }
    },
  }
}
