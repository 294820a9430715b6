/**
 * Demo: a real OpenCode 1.18.33 server, this plugin, and a fake model that hangs once.
 * Prints what happened as a short timeline and exits 0 when the stall was recovered.
 * Offline: the fake provider listens on 127.0.0.1 and nothing is downloaded.
 *
 *   npx -y bun@1.4.5 install --frozen-lockfile && npx -y bun@1.4.5 run demo
 */
import { hangAfter, startFakeProvider, text } from "../test/e2e/harness/fake-provider.ts"
import { createSession, pluginLogs, promptAsync, startOpencode } from "../test/e2e/harness/opencode-host.ts"
import { PLUGIN_URL, eventually, lastAssistantText } from "../test/e2e/support.ts"

const OPTIONS = { chunkTimeoutMs: 3000, gracePeriodMs: 500, baseBackoffMs: 200, maxBackoffMs: 1000, checkIntervalMs: 500 }

let t0 = Date.now()
const lines: Array<{ at: number; who: string; what: string }> = []
const note = (who: string, what: string, at = Date.now()) => lines.push({ at, who, what })

async function main(): Promise<number> {
  const provider = await startFakeProvider()
  provider.enqueue(hangAfter("Let me check the build log"))
  provider.setFallback(text("Picked up where I stopped: the build log shows no errors."))
  console.log(`Starting OpenCode 1.18.33 with opencode-auto-resume (stall budget ${OPTIONS.chunkTimeoutMs + OPTIONS.gracePeriodMs} ms)...`)
  const host = await startOpencode({ providerUrl: provider.url, plugins: [[PLUGIN_URL, OPTIONS]] })
  try {
    const sessionID = await createSession(host)
    t0 = Date.now()
    note("user", `prompt: "check the build"`)
    await promptAsync(host, sessionID, "check the build")
    const ok = await eventually(async () => (await lastAssistantText(host, sessionID)).includes("Picked up"), 45_000, 200)

    for (const r of provider.requests) {
      const what = r.step.kind === "hangAfter" ? `model streams "${(r.step as { partialText: string }).partialText}" ... then hangs` : `model answers (request ${r.index})`
      const asked = r.lastUserText.includes("auto-resume") ? " to the plugin's continue" : ""
      note("provider", `${what}${asked}`, r.at)
    }
    for (const log of pluginLogs(host, "auto-resume")) {
      if (!log.message.includes(sessionID)) continue
      const at = Date.parse(log.fields.timestamp ?? "") || Date.now()
      note("auto-resume", log.message.replace(`session ${sessionID}: `, ""), at)
    }
    for (const r of host.events.records()) {
      const e = r.event
      if (e?.properties?.sessionID !== sessionID) continue
      if (e.type === "session.error") note("opencode", `session.error ${e.properties?.error?.name}`, r.at)
      if (e.type === "session.idle") note("opencode", "session idle", r.at)
    }
    lines.sort((a, b) => a.at - b.at)
    console.log("\nTimeline")
    for (const l of lines) console.log(`  +${((l.at - t0) / 1000).toFixed(1).padStart(5)}s  ${l.who.padEnd(11)} ${l.what}`)
    console.log(`\nFinal answer: ${JSON.stringify(await lastAssistantText(host, sessionID))}`)
    console.log(ok ? "Outcome: the hung stream was recovered without the user doing anything." : "Outcome: NOT recovered.")
    return ok ? 0 : 1
  } finally {
    await host.stop()
    await provider.stop()
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error)
    process.exit(1)
  },
)
