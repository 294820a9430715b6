/**
 * A scripted stand-in for an OpenAI-compatible Chat Completions endpoint, for end-to-end tests
 * against a real OpenCode host. Listens on 127.0.0.1 only (random port) and answers
 * `POST <url>/chat/completions` from a FIFO script of plain-data steps.
 *
 * Title-generation requests (system prompt mentions "You are a title generator") are answered
 * with a short title and never consume the script; they are kept in `titleRequests`.
 */
import http from "node:http"
import type { AddressInfo } from "node:net"

// ---------------------------------------------------------------------------------------------
// Steps
// ---------------------------------------------------------------------------------------------

export type TextStep = {
  kind: "text"
  content: string
  /** How many content deltas to split the text into (default 3, capped by length). */
  chunks?: number
  /** Reported as usage.completion_tokens (default: number of chunks). */
  completionTokens?: number
  /** Pause between deltas, in ms (default 0). */
  delayMs?: number
  /** The stream's finish_reason (default "stop"; "length": cut off at the output limit). */
  finish?: string
}
/** `cutAt`: only that many characters of the arguments are sent, then finish_reason "length". */
export type ToolCallStep = { kind: "toolCall"; name: string; args: Record<string, unknown>; id?: string; cutAt?: number }
export type HangAfterStep = { kind: "hangAfter"; partialText: string }
export type HangBeforeHeadersStep = { kind: "hangBeforeHeaders" }
/**
 * Partial text, then nothing but SSE comments (`: keep-alive`) every `everyMs`, forever: bytes
 * keep arriving, so a timeout that counts bytes is reset, while no event reaches the session.
 */
export type HangWarmStep = { kind: "hangWarm"; partialText: string; everyMs: number }
export type ReasoningOnlyStep = { kind: "reasoningOnly"; text: string; completionTokens: number }
export type HttpErrorStep = {
  kind: "httpError"
  status: number
  retryAfterMs?: number
  retryAfter?: number | string
  body?: unknown
}
export type ErrorChunkStep = { kind: "errorChunk"; message: string }
export type DestroyMidStreamStep = { kind: "destroyMidStream"; partialText: string }

export type Step =
  | TextStep
  | ToolCallStep
  | HangAfterStep
  | HangBeforeHeadersStep
  | HangWarmStep
  | ReasoningOnlyStep
  | HttpErrorStep
  | ErrorChunkStep
  | DestroyMidStreamStep

export const text = (content: string, o: { chunks?: number; completionTokens?: number; delayMs?: number; finish?: string } = {}): TextStep => ({
  kind: "text",
  content,
  ...o,
})
export const toolCall = (name: string, args: Record<string, unknown>, o: { id?: string; cutAt?: number } = {}): ToolCallStep => ({
  kind: "toolCall",
  name,
  args,
  ...o,
})
export const hangAfter = (partialText: string): HangAfterStep => ({ kind: "hangAfter", partialText })
export const hangBeforeHeaders = (): HangBeforeHeadersStep => ({ kind: "hangBeforeHeaders" })
export const hangWarm = (partialText: string, everyMs = 500): HangWarmStep => ({ kind: "hangWarm", partialText, everyMs })
export const reasoningOnly = (text: string, completionTokens: number): ReasoningOnlyStep => ({
  kind: "reasoningOnly",
  text,
  completionTokens,
})
export const httpError = (
  status: number,
  o: { retryAfterMs?: number; retryAfter?: number | string; body?: unknown } = {},
): HttpErrorStep => ({ kind: "httpError", status, ...o })
export const errorChunk = (message: string): ErrorChunkStep => ({ kind: "errorChunk", message })
export const destroyMidStream = (partialText: string): DestroyMidStreamStep => ({ kind: "destroyMidStream", partialText })

// ---------------------------------------------------------------------------------------------
// Recorded requests
// ---------------------------------------------------------------------------------------------

export type RequestOutcome =
  | "pending" // still being answered (includes hung)
  | "completed" // the scripted answer was fully written
  | "released" // a hang ended by releaseHangs()/stop()
  | "clientAborted" // the client went away before we finished
  | "destroyed" // we destroyed the socket on purpose

export type RecordedRequest = {
  /** 1-based position among non-title chat requests. */
  index: number
  at: number
  body: any
  step: Step
  /** Text of the last `user` message in body.messages ("" when none). */
  lastUserText: string
  outcome: RequestOutcome
  /** A hang: when its last data chunk was written (the moment the stream fell silent for the session). */
  lastByteAt?: number
  /** A warm hang: when its latest keep-alive comment was written. */
  lastKeepAliveAt?: number
  /** When the connection closed (the client hung up, or the answer ended). */
  closedAt?: number
}

export type FakeProvider = {
  /** Base URL, e.g. http://127.0.0.1:40123/v1 */
  url: string
  port: number
  enqueue(...steps: Step[]): void
  setFallback(step: Step): void
  /**
   * A script of its own for requests naming `model` (the body's model id): its steps first,
   * then its fallback; a model without one is served from the shared script. `undefined`
   * removes the model's fallback.
   */
  enqueueFor(model: string, ...steps: Step[]): void
  setFallbackFor(model: string, step: Step | undefined): void
  /** Steps still waiting in the script. */
  pending(): number
  /** Every non-title chat request, in arrival order. */
  requests: RecordedRequest[]
  titleRequests: any[]
  /** Requests on paths other than /chat/completions (method + path). */
  otherRequests: string[]
  waitForRequests(n: number, timeoutMs: number): Promise<RecordedRequest[]>
  /** Hung responses currently open. */
  hungCount(): number
  /**
   * Ends every hung response. "finish" (default) completes it as a normal answer
   * (finish_reason stop, [DONE]); "destroy" drops the connection.
   */
  releaseHangs(mode?: "finish" | "destroy"): number
  stop(): Promise<void>
}

/** Text of the last user message of a Chat Completions body. */
export function lastUserMessageText(body: any): string {
  const msgs: any[] = Array.isArray(body?.messages) ? body.messages : []
  for (let i = msgs.length - 1; i >= 0; i--) {
    const m = msgs[i]
    if (m?.role !== "user") continue
    return contentText(m.content)
  }
  return ""
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content
  if (Array.isArray(content))
    return content
      .map((p: any) => (typeof p === "string" ? p : p?.type === "text" && typeof p.text === "string" ? p.text : ""))
      .filter(Boolean)
      .join("\n")
  return ""
}

function isTitleRequest(body: any): boolean {
  const msgs: any[] = Array.isArray(body?.messages) ? body.messages : []
  return msgs.some((m) => m?.role === "system" && contentText(m.content).includes("You are a title generator"))
}

function splitInto(s: string, n: number): string[] {
  if (s.length === 0) return [""]
  const count = Math.max(1, Math.min(n, s.length))
  const size = Math.ceil(s.length / count)
  const out: string[] = []
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size))
  return out
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

// ---------------------------------------------------------------------------------------------
// Server
// ---------------------------------------------------------------------------------------------

type Hung = {
  rec: RecordedRequest | undefined
  res: http.ServerResponse
  headersSent: boolean
  model: string
}

export async function startFakeProvider(): Promise<FakeProvider> {
  const script: Step[] = []
  let fallback: Step = text("ok", { chunks: 1 })
  const modelScripts = new Map<string, Step[]>()
  const modelFallbacks = new Map<string, Step>()
  const nextStep = (model: unknown): Step => {
    const key = typeof model === "string" ? model : ""
    return modelScripts.get(key)?.shift() ?? modelFallbacks.get(key) ?? script.shift() ?? fallback
  }
  const requests: RecordedRequest[] = []
  const titleRequests: any[] = []
  const otherRequests: string[] = []
  const hung = new Set<Hung>()
  const waiters = new Set<() => void>()
  let seq = 0
  let stopped = false

  const notify = () => {
    for (const w of [...waiters]) w()
  }

  const chunkFor = (model: string, delta: Record<string, unknown>, finish: string | null, extra?: object) => ({
    id: `chatcmpl-fake-${++seq}`,
    object: "chat.completion.chunk",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  })

  const usage = (completion: number) => ({
    usage: { prompt_tokens: 10, completion_tokens: completion, total_tokens: 10 + completion },
  })

  const sseHead = (res: http.ServerResponse) => {
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache",
      connection: "keep-alive",
    })
    res.flushHeaders?.()
  }
  const send = (res: http.ServerResponse, data: unknown) => {
    if (res.destroyed || res.writableEnded) return
    res.write(`data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`)
  }
  const finishStop = (res: http.ServerResponse, model: string, completion: number, reason = "stop") => {
    send(res, chunkFor(model, {}, reason, usage(completion)))
    send(res, "[DONE]")
    res.end()
  }

  const gone = (res: http.ServerResponse) => res.destroyed || res.writableEnded

  async function answer(step: Step, body: any, res: http.ServerResponse, rec: RecordedRequest | undefined) {
    const model = typeof body?.model === "string" ? body.model : "fake-model"
    const streaming = body?.stream !== false
    const setOutcome = (o: RequestOutcome) => {
      if (rec && rec.outcome === "pending") rec.outcome = o
    }

    if (!streaming && (step.kind === "text" || step.kind === "toolCall")) {
      // Non-streaming fallback: a single JSON completion.
      const message =
        step.kind === "text"
          ? { role: "assistant", content: step.content }
          : {
              role: "assistant",
              content: null,
              tool_calls: [
                { id: step.id ?? "call_1", type: "function", function: { name: step.name, arguments: JSON.stringify(step.args) } },
              ],
            }
      res.writeHead(200, { "content-type": "application/json" })
      res.end(
        JSON.stringify({
          id: `chatcmpl-fake-${++seq}`,
          object: "chat.completion",
          created: Math.floor(Date.now() / 1000),
          model,
          choices: [{ index: 0, message, finish_reason: step.kind === "text" ? "stop" : "tool_calls" }],
          ...usage(1),
        }),
      )
      setOutcome("completed")
      return
    }

    switch (step.kind) {
      case "text": {
        const parts = splitInto(step.content, step.chunks ?? 3)
        sseHead(res)
        for (let i = 0; i < parts.length; i++) {
          if (gone(res)) return
          send(res, chunkFor(model, i === 0 ? { role: "assistant", content: parts[i] } : { content: parts[i] }, null))
          if (step.delayMs) await sleep(step.delayMs)
        }
        if (gone(res)) return
        finishStop(res, model, step.completionTokens ?? parts.length, step.finish)
        setOutcome("completed")
        return
      }
      case "toolCall": {
        const id = step.id ?? `call_${rec?.index ?? seq}`
        const fullArgs = JSON.stringify(step.args)
        const argText = step.cutAt === undefined ? fullArgs : fullArgs.slice(0, step.cutAt)
        sseHead(res)
        send(
          res,
          chunkFor(
            model,
            { role: "assistant", tool_calls: [{ index: 0, id, type: "function", function: { name: step.name, arguments: "" } }] },
            null,
          ),
        )
        for (const piece of splitInto(argText, 2))
          send(res, chunkFor(model, { tool_calls: [{ index: 0, function: { arguments: piece } }] }, null))
        send(res, chunkFor(model, {}, step.cutAt === undefined ? "tool_calls" : "length", usage(5)))
        send(res, "[DONE]")
        res.end()
        setOutcome("completed")
        return
      }
      case "reasoningOnly": {
        sseHead(res)
        const parts = splitInto(step.text, 3)
        parts.forEach((p, i) =>
          send(res, chunkFor(model, i === 0 ? { role: "assistant", reasoning_content: p } : { reasoning_content: p }, null)),
        )
        finishStop(res, model, step.completionTokens)
        setOutcome("completed")
        return
      }
      case "httpError": {
        const headers: Record<string, string> = { "content-type": "application/json" }
        if (step.retryAfterMs !== undefined) headers["retry-after-ms"] = String(step.retryAfterMs)
        if (step.retryAfter !== undefined) headers["retry-after"] = String(step.retryAfter)
        const payload =
          step.body ??
          ({
            error: {
              message: step.status === 429 ? "Rate limit exceeded" : `Fake provider error ${step.status}`,
              type: step.status === 429 ? "rate_limit_error" : step.status >= 500 ? "server_error" : "invalid_request_error",
              code: step.status,
            },
          } as const)
        res.writeHead(step.status, headers)
        res.end(typeof payload === "string" ? payload : JSON.stringify(payload))
        setOutcome("completed")
        return
      }
      case "errorChunk": {
        sseHead(res)
        send(res, { error: { message: step.message, type: "server_error", code: "fake_error" } })
        res.end()
        setOutcome("completed")
        return
      }
      case "destroyMidStream": {
        sseHead(res)
        for (const [i, p] of splitInto(step.partialText, 2).entries())
          send(res, chunkFor(model, i === 0 ? { role: "assistant", content: p } : { content: p }, null))
        // Give the bytes a moment to leave before the reset.
        await sleep(50)
        setOutcome("destroyed")
        res.destroy()
        res.socket?.destroy()
        return
      }
      case "hangAfter":
      case "hangWarm":
      case "hangBeforeHeaders": {
        const h: Hung = { rec, res, headersSent: false, model }
        if (step.kind === "hangAfter" || step.kind === "hangWarm") {
          sseHead(res)
          h.headersSent = true
          for (const [i, p] of splitInto(step.partialText, 2).entries())
            send(res, chunkFor(model, i === 0 ? { role: "assistant", content: p } : { content: p }, null))
        }
        hung.add(h)
        if (step.kind === "hangWarm") {
          if (rec) rec.lastByteAt = Date.now()
          const timer = setInterval(() => {
            if (gone(res) || !hung.has(h)) return clearInterval(timer)
            res.write(": keep-alive\n\n")
            if (rec) rec.lastKeepAliveAt = Date.now()
          }, step.everyMs)
          res.on("close", () => clearInterval(timer))
        } else if (rec) rec.lastByteAt = Date.now()
        return
      }
    }
  }

  const server = http.createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0] ?? ""
    if (req.method !== "POST" || !path.endsWith("/chat/completions")) {
      otherRequests.push(`${req.method} ${req.url}`)
      res.writeHead(404, { "content-type": "application/json" })
      res.end(JSON.stringify({ error: { message: "not found" } }))
      return
    }
    const bufs: Buffer[] = []
    req.on("data", (b: Buffer) => bufs.push(b))
    req.on("end", () => {
      let body: any
      try {
        body = JSON.parse(Buffer.concat(bufs).toString("utf8"))
      } catch {
        res.writeHead(400, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: { message: "bad json" } }))
        return
      }
      if (isTitleRequest(body)) {
        titleRequests.push(body)
        void answer(text("Fake title", { chunks: 1 }), body, res, undefined)
        return
      }
      const step = nextStep(body?.model)
      const rec: RecordedRequest = {
        index: requests.length + 1,
        at: Date.now(),
        body,
        step,
        lastUserText: lastUserMessageText(body),
        outcome: "pending",
      }
      requests.push(rec)
      // The client hanging up before we are done: forget any hang, record it.
      res.on("close", () => {
        rec.closedAt = Date.now()
        for (const h of hung) if (h.res === res) hung.delete(h)
        if (rec.outcome === "pending" && !res.writableFinished) rec.outcome = "clientAborted"
        else if (rec.outcome === "pending") rec.outcome = "completed"
      })
      notify()
      void answer(step, body, res, rec).catch(() => {
        if (!res.destroyed) res.destroy()
      })
    })
  })

  // Track sockets so stop() can tear down keep-alive connections too.
  const sockets = new Set<import("node:net").Socket>()
  server.on("connection", (s) => {
    sockets.add(s)
    s.on("close", () => sockets.delete(s))
  })

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const port = (server.address() as AddressInfo).port

  const releaseHangs = (mode: "finish" | "destroy" = "finish"): number => {
    const list = [...hung]
    hung.clear()
    for (const h of list) {
      if (h.rec && h.rec.outcome === "pending") h.rec.outcome = "released"
      if (gone(h.res)) continue
      if (mode === "destroy") {
        h.res.destroy()
        continue
      }
      try {
        if (!h.headersSent) sseHead(h.res)
        finishStop(h.res, h.model, 1)
      } catch {
        h.res.destroy()
      }
    }
    return list.length
  }

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    enqueue: (...steps) => void script.push(...steps),
    setFallback: (step) => void (fallback = step),
    enqueueFor: (model, ...steps) => {
      const list = modelScripts.get(model) ?? []
      list.push(...steps)
      modelScripts.set(model, list)
    },
    setFallbackFor: (model, step) => void (step ? modelFallbacks.set(model, step) : modelFallbacks.delete(model)),
    pending: () => script.length,
    requests,
    titleRequests,
    otherRequests,
    hungCount: () => hung.size,
    releaseHangs,
    waitForRequests(n, timeoutMs) {
      if (requests.length >= n) return Promise.resolve(requests.slice())
      return new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length >= n) {
            cleanup()
            resolve(requests.slice())
          }
        }
        const timer = setTimeout(() => {
          cleanup()
          reject(new Error(`fake provider: expected ${n} requests within ${timeoutMs} ms, got ${requests.length}`))
        }, timeoutMs)
        const cleanup = () => {
          clearTimeout(timer)
          waiters.delete(check)
        }
        waiters.add(check)
      })
    },
    async stop() {
      if (stopped) return
      stopped = true
      releaseHangs("destroy")
      for (const s of sockets) s.destroy()
      await Promise.race([new Promise<void>((r) => server.close(() => r())), sleep(1000)])
      server.closeAllConnections?.()
    },
  }
}
