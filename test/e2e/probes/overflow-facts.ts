/**
 * What OpenCode 1.18 does with a context overflow, as a plugin sees it (issue 29 part 1).
 * Not a test: run `node_modules/.bin/bun test/e2e/probes/overflow-facts.ts [scenario...]` and
 * read the timelines. Scenarios: overflow (the provider answers 400 "maximum context length",
 * then the host's compaction is answered), failed (the compaction request overflows too),
 * summarize (the plugin-side `session.summarize` on an idle session).
 */
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { httpError, startFakeProvider, text } from "../harness/fake-provider.ts"
import { createSession, messages, promptAsync, startOpencode, eventSessionID } from "../harness/opencode-host.ts"
import { readProbe } from "../fixtures/probe-records.ts"

const wanted = new Set(process.argv.slice(2))
const run = (name: string) => wanted.size === 0 || wanted.has(name)

const recordFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "oc-overflow-")), "probe.jsonl")
const pluginUrl = pathToFileURL(path.join(import.meta.dir, "..", "fixtures", "probe-plugin.ts")).href

/** The body OpenAI sends for a prompt past the window. */
export const OVERFLOW_BODY = {
  error: {
    message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
    type: "invalid_request_error",
    code: "context_length_exceeded",
  },
}

const provider = await startFakeProvider()
const host = await startOpencode({ providerUrl: provider.url, plugins: [[pluginUrl, { recordFile }]] })
const t0 = Date.now()
const ts = (t: number) => ((t - t0) / 1000).toFixed(2).padStart(7)

function brief(e: any): string {
  const p = e?.properties ?? {}
  switch (e?.type) {
    case "session.status":
      return `session.status ${p.status?.type}`
    case "message.updated":
      return `message.updated ${p.info?.role} id=${p.info?.id}${p.info?.summary ? ` summary=${JSON.stringify(p.info.summary)}` : ""}${p.info?.mode ? ` mode=${p.info.mode}` : ""}${p.info?.agent ? ` agent=${p.info.agent}` : ""}${p.info?.finish ? ` finish=${p.info.finish}` : ""}${p.info?.error ? ` error=${p.info.error.name}:${JSON.stringify(p.info.error.data ?? {}).slice(0, 120)}` : ""}${p.info?.time?.completed ? " completed" : ""}`
    case "message.part.updated":
      return `part ${p.part?.type}${p.part?.state?.status ? `(${p.part.state.status})` : ""}${p.part?.synthetic ? " synthetic" : ""} ${p.part?.type === "compaction" || p.part?.type === "text" ? JSON.stringify(p.part).slice(0, 260) : ""}`
    case "session.error":
      return `session.error ${p.error?.name} ${JSON.stringify(p.error?.data ?? {}).slice(0, 160)}`
    case "session.compacted":
      return `session.compacted ${JSON.stringify(p)}`
    default:
      return `${e?.type} ${JSON.stringify(p).slice(0, 160)}`
  }
}

function timeline(sessionID: string, from: number) {
  let deltas = 0
  for (const r of host.events.records().slice(from)) {
    const sid = eventSessionID(r.event)
    if (sid && sid !== sessionID) continue
    if (!sid) continue
    if (r.event?.type === "message.part.delta") {
      deltas++
      continue
    }
    if (deltas) console.log(`        (${deltas} message.part.delta)`), (deltas = 0)
    console.log(`${ts(r.at)} ${brief(r.event)}`)
  }
  if (deltas) console.log(`        (${deltas} message.part.delta)`)
}

function providerLog(from = 0) {
  for (const r of provider.requests.slice(from))
    console.log(`${ts(r.at)} provider #${r.index} step=${r.step.kind} outcome=${r.outcome} lastUser=${JSON.stringify(r.lastUserText).slice(0, 200)} msgs=${r.body?.messages?.length}`)
}

async function dump(s: string) {
  const msgs = await messages(host, s)
  for (const m of msgs)
    console.log(
      JSON.stringify({ role: m.info.role, mode: m.info.mode, agent: m.info.agent, summary: m.info.summary, finish: m.info.finish, error: m.info.error?.name, parts: m.parts.map((p: any) => (p.type === "text" ? `text:${p.synthetic ? "synthetic:" : ""}${String(p.text).slice(0, 80)}` : p.type === "compaction" ? `compaction:${JSON.stringify(p)}` : p.type)) }),
    )
}

async function scenario(name: string, steps: any[], prompt: string, waitMs: number) {
  console.log(`\n=== ${name} ===`)
  const s = await createSession(host)
  const from = host.events.mark()
  const reqFrom = provider.requests.length
  const probeFrom = readProbe(recordFile).length
  provider.enqueue(...steps)
  await promptAsync(host, s, prompt)
  await Bun.sleep(waitMs)
  timeline(s, from)
  providerLog(reqFrom)
  for (const r of readProbe(recordFile).slice(probeFrom))
    if (r.kind === "chat.message") console.log(`${ts(r.t)} hook chat.message ${JSON.stringify(r.parts?.map((p: any) => ({ type: p.type, text: p.text?.slice?.(0, 60), synthetic: p.synthetic, auto: p.auto, overflow: p.overflow })))} msg=${JSON.stringify(r.message).slice(0, 200)}`)
  await dump(s)
  return s
}

try {
  if (run("overflow")) {
    await scenario("overflow: 400 maximum context length, then answers", [httpError(400, { body: OVERFLOW_BODY }), text("summary of the work so far"), text("resumed after compaction")], "do the thing", 12000)
  }
  if (run("failed")) {
    await scenario("failed: overflow, and the compaction request overflows too", [httpError(400, { body: OVERFLOW_BODY }), httpError(400, { body: OVERFLOW_BODY }), text("after")], "do the thing", 12000)
  }
  if (run("summarize")) {
    console.log("\n=== summarize: session.summarize called on an idle session ===")
    const s = await createSession(host)
    provider.enqueue(text("first answer"))
    await promptAsync(host, s, "hello")
    await Bun.sleep(4000)
    const from = host.events.mark()
    const reqFrom = provider.requests.length
    provider.enqueue(text("summary text"), text("after summary"))
    const t = Date.now()
    const res = await fetch(`${host.url}/session/${s}/summarize?directory=${encodeURIComponent(host.directory)}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ providerID: "fake", modelID: "fake-model" }),
    })
    console.log(`${ts(Date.now())} summarize answered ${res.status} after ${Date.now() - t} ms: ${(await res.text()).slice(0, 200)}`)
    await Bun.sleep(5000)
    timeline(s, from)
    providerLog(reqFrom)
    await dump(s)
  }
} finally {
  await host.stop()
  await provider.stop()
  fs.rmSync(path.dirname(recordFile), { recursive: true, force: true })
}
