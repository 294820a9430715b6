/**
 * Re-measures the host facts written down in ../HOST-NOTES.md against the real OpenCode binary.
 * Not a test: run `node_modules/.bin/bun test/e2e/probes/host-facts.ts [scenario...]` and read the
 * timelines it prints. Scenarios: hang, queue, abort, abort-early, synthetic, tool, silent.
 */
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { hangAfter, startFakeProvider, text, toolCall } from "../harness/fake-provider.ts"
import { abortSession, createSession, messages, promptAsync, startOpencode, eventSessionID } from "../harness/opencode-host.ts"
import { readProbe } from "../fixtures/probe-records.ts"

const wanted = new Set(process.argv.slice(2))
const run = (name: string) => wanted.size === 0 || wanted.has(name)

const recordFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "oc-probe-")), "probe.jsonl")
const pluginUrl = pathToFileURL(path.join(import.meta.dir, "..", "fixtures", "probe-plugin.ts")).href

const provider = await startFakeProvider()
const host = await startOpencode({ providerUrl: provider.url, plugins: [[pluginUrl, { recordFile }]] })
const t0 = Date.now()
const ts = (t: number) => ((t - t0) / 1000).toFixed(2).padStart(7)

function brief(e: any): string {
  const p = e?.properties ?? {}
  switch (e?.type) {
    case "session.status":
      return `session.status ${p.status?.type}${p.status?.attempt ? ` attempt=${p.status.attempt}` : ""}`
    case "message.updated":
      return `message.updated ${p.info?.role}${p.info?.finish ? ` finish=${p.info.finish}` : ""}${p.info?.error ? ` error=${p.info.error.name}` : ""}${p.info?.time?.completed ? " completed" : ""}`
    case "message.part.updated":
      return `part ${p.part?.type}${p.part?.state?.status ? `(${p.part.state.status})` : ""}${p.part?.synthetic ? " synthetic" : ""}`
    case "session.error":
      return `session.error ${p.error?.name} ${JSON.stringify(p.error?.data ?? {}).slice(0, 80)}`
    default:
      return e?.type
  }
}

/** Prints events for one session from index `from`, collapsing runs of deltas. */
function timeline(sessionID: string, from: number) {
  let deltas = 0
  for (const r of host.events.records().slice(from)) {
    const sid = eventSessionID(r.event)
    if (sid && sid !== sessionID) continue
    if (!sid && !/^(server|session)\./.test(r.event?.type)) continue
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
    console.log(`${ts(r.at)} provider #${r.index} step=${r.step.kind} outcome=${r.outcome} lastUser=${JSON.stringify(r.lastUserText)}`)
}

try {
  if (run("hang")) {
    console.log("\n=== hang: hangAfter, second promptAsync while hung, then abort ===")
    const s = await createSession(host)
    const from = host.events.mark()
    const reqFrom = provider.requests.length
    provider.enqueue(hangAfter("partial answer "))
    await promptAsync(host, s, "first message")
    await provider.waitForRequests(reqFrom + 1, 15000)
    console.log(`${ts(Date.now())} -- provider got request; waiting 4 s`)
    await Bun.sleep(4000)
    console.log(`${ts(Date.now())} -- promptAsync "second message" while hung`)
    await promptAsync(host, s, "second message")
    await Bun.sleep(4000)
    const msgsBefore = await messages(host, s)
    console.log(`${ts(Date.now())} -- messages before abort: ${JSON.stringify(msgsBefore.map((m) => [m.info.role, m.parts.map((p: any) => p.text ?? p.type)]))}`)
    console.log(`${ts(Date.now())} -- session.abort`)
    provider.enqueue(text("answer after abort"))
    await abortSession(host, s)
    await Bun.sleep(6000)
    console.log(`${ts(Date.now())} -- promptAsync "third message"`)
    await promptAsync(host, s, "third message")
    await host.events.waitForEvent((e) => e.type === "session.idle" && e.properties?.sessionID === s, 20000, host.events.mark())
    timeline(s, from)
    providerLog(reqFrom)
    for (const r of readProbe(recordFile))
      if (r.kind === "chat.message" && r.input?.sessionID === s) console.log(`${ts(r.t)} hook chat.message ${JSON.stringify(r.parts?.map((p: any) => p.text))}`)
    const third = provider.requests.at(-1)
    console.log("roles/texts the provider saw for the third turn:", JSON.stringify(third?.body?.messages?.filter((m: any) => m.role !== "system").map((m: any) => [m.role, typeof m.content === "string" ? m.content : m.content?.map((c: any) => c.text).join("|")])))
    const msgs = await messages(host, s)
    console.log(JSON.stringify(msgs.map((m) => [m.info.role, m.info.finish ?? null, m.info.error?.name ?? null, m.parts.map((p: any) => p.text ?? p.type)])))
  }

  if (run("queue")) {
    console.log("\n=== queue: second promptAsync while hung, then the hung stream finishes normally ===")
    const s = await createSession(host)
    const from = host.events.mark()
    const reqFrom = provider.requests.length
    const probeFrom = readProbe(recordFile).length
    provider.enqueue(hangAfter("partial answer "), text("answer to queued"))
    await promptAsync(host, s, "first message")
    await provider.waitForRequests(reqFrom + 1, 15000)
    await Bun.sleep(1000)
    console.log(`${ts(Date.now())} -- promptAsync "queued message" while hung`)
    await promptAsync(host, s, "queued message")
    await Bun.sleep(2000)
    console.log(`${ts(Date.now())} -- releaseHangs (finish normally)`)
    provider.releaseHangs("finish")
    await Bun.sleep(4000)
    timeline(s, from)
    providerLog(reqFrom)
    for (const r of readProbe(recordFile).slice(probeFrom))
      if (r.kind === "chat.message") console.log(`${ts(r.t)} hook chat.message ${JSON.stringify(r.parts?.map((p: any) => p.text))}`)
    const msgs = await messages(host, s)
    console.log(JSON.stringify(msgs.map((m) => [m.info.role, m.info.finish ?? null, m.info.error?.name ?? null, m.parts.map((p: any) => p.text ?? p.type)])))
  }

  if (run("abort")) {
    console.log("\n=== abort: event sequence and how soon a fresh turn starts ===")
    const s = await createSession(host)
    const from = host.events.mark()
    const reqFrom = provider.requests.length
    provider.enqueue(hangAfter("partial "))
    await promptAsync(host, s, "to be aborted")
    await provider.waitForRequests(reqFrom + 1, 15000)
    await Bun.sleep(500)
    const ta = Date.now()
    console.log(`${ts(ta)} -- session.abort`)
    await abortSession(host, s)
    console.log(`${ts(Date.now())} -- abort returned; promptAsync at once`)
    provider.enqueue(text("fresh turn answer"))
    await promptAsync(host, s, "right after abort")
    await provider.waitForRequests(reqFrom + 2, 15000).catch((e) => console.log(String(e)))
    console.log(`${ts(Date.now())} -- second provider request ${Date.now() - ta} ms after abort`)
    await Bun.sleep(3000)
    timeline(s, from)
    providerLog(reqFrom)
    const msgs = await messages(host, s)
    console.log(JSON.stringify(msgs.map((m) => [m.info.role, m.info.finish ?? null, m.info.error?.name ?? null, m.parts.map((p: any) => p.text ?? p.type)])))
  }

  if (run("abort-early")) {
    // What a plugin that prompts on the abort's first idle meets: the prompt goes out on the first
    // `session.status idle` of the aborted run, before the abort call has answered and before the
    // aborted message's update and the second idle.
    console.log("\n=== abort-early: promptAsync on the first idle of the aborted run ===")
    const s = await createSession(host)
    const from = host.events.mark()
    const reqFrom = provider.requests.length
    provider.enqueue(hangAfter("partial "))
    await promptAsync(host, s, "to be aborted")
    await provider.waitForRequests(reqFrom + 1, 15000)
    await Bun.sleep(500)
    const ta = Date.now()
    const mark = host.events.mark()
    const firstIdle = host.events.waitForEvent((e) => e?.type === "session.status" && e?.properties?.sessionID === s && e?.properties?.status?.type === "idle", 5000, mark)
    console.log(`${ts(ta)} -- session.abort`)
    const aborting = abortSession(host, s)
    await firstIdle
    console.log(`${ts(Date.now())} -- first idle seen; promptAsync at once`)
    provider.enqueue(text("fresh turn answer"))
    await promptAsync(host, s, "right after first idle")
    await aborting
    console.log(`${ts(Date.now())} -- abort returned`)
    await provider.waitForRequests(reqFrom + 2, 15000).catch((e) => console.log(String(e)))
    console.log(`${ts(Date.now())} -- second provider request ${Date.now() - ta} ms after abort`)
    await Bun.sleep(3000)
    timeline(s, from)
    providerLog(reqFrom)
    const msgs = await messages(host, s)
    console.log(JSON.stringify(msgs.map((m) => [m.info.role, m.info.finish ?? null, m.info.error?.name ?? null, m.parts.map((p: any) => p.text ?? p.type)])))
  }

  if (run("synthetic")) {
    console.log("\n=== synthetic: text part with synthetic + metadata ===")
    const s = await createSession(host)
    const reqFrom = provider.requests.length
    const probeFrom = readProbe(recordFile).length
    provider.enqueue(text("synthetic answer"))
    await promptAsync(host, s, [{ type: "text", text: "please continue [auto]", synthetic: true, metadata: { autoResume: true } }], {
      agent: "build",
      model: { providerID: "fake", modelID: "fake-model" },
    })
    await host.events.waitForEvent((e) => e.type === "session.idle" && e.properties?.sessionID === s, 20000)
    const cm = readProbe(recordFile).slice(probeFrom).filter((r) => r.kind === "chat.message")
    console.log("chat.message input:", JSON.stringify(cm[0]?.input))
    console.log("chat.message parts:", JSON.stringify(cm[0]?.parts))
    providerLog(reqFrom)
    const msgs = await messages(host, s)
    console.log("stored user parts:", JSON.stringify(msgs[0]?.parts))
    console.log("provider user content:", JSON.stringify(provider.requests[reqFrom]?.body?.messages?.filter((m: any) => m.role === "user")))
  }

  if (run("tool")) {
    console.log("\n=== tool: bash sleep 5 ===")
    const s = await createSession(host)
    const from = host.events.mark()
    const reqFrom = provider.requests.length
    const probeFrom = readProbe(recordFile).length
    provider.enqueue(toolCall("bash", { command: "sleep 5 && echo slept", description: "sleep five seconds" }), text("tool done"))
    await promptAsync(host, s, "run the sleep")
    await host.events.waitForEvent((e) => e.type === "session.idle" && e.properties?.sessionID === s, 30000)
    timeline(s, from)
    providerLog(reqFrom)
    for (const r of readProbe(recordFile).slice(probeFrom))
      if (r.kind.startsWith("tool.") || r.kind === "chat.params" || (r.kind === "event" && r.type === "message.part.updated" && r.properties?.part?.type === "tool"))
        console.log(`${ts(r.t)} hook ${r.kind} ${r.kind === "event" ? `tool part ${r.properties.part.state?.status}` : JSON.stringify(r.input ?? r.sessionID).slice(0, 160)} ${r.args ? JSON.stringify(r.args) : ""}`)
  }

  if (run("silent")) {
    const secs = Number(process.env.SILENT_SECONDS ?? 40)
    console.log(`\n=== silent: hung stream watched for ${secs} s ===`)
    const s = await createSession(host)
    const reqFrom = provider.requests.length
    provider.enqueue(hangAfter("thinking... "))
    await promptAsync(host, s, "hang please")
    await provider.waitForRequests(reqFrom + 1, 15000)
    const from = host.events.mark()
    const probeFrom = readProbe(recordFile).length
    const tw = Date.now()
    await Bun.sleep(secs * 1000)
    console.log(`-- bus events (all sessions) during the silent ${secs} s:`)
    for (const r of host.events.records().slice(from)) console.log(`${ts(r.at)} ${brief(r.event)} sid=${eventSessionID(r.event) ?? "-"}`)
    console.log(`-- plugin hook calls during the silent ${secs} s:`)
    for (const r of readProbe(recordFile).slice(probeFrom)) if (r.t >= tw) console.log(`${ts(r.t)} ${r.kind} ${r.type ?? ""}`)
    await abortSession(host, s)
    await Bun.sleep(500)
  }
} finally {
  await host.stop()
  await provider.stop()
  fs.rmSync(path.dirname(recordFile), { recursive: true, force: true })
}
