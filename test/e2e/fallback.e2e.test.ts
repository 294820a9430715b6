/**
 * Fallback models (issue 19) inside a real OpenCode 1.18.33 server, the plugin loaded from this
 * checkout, and a fake provider on 127.0.0.1 serving two models of one provider: `fake-model`
 * (the user's) answers 429 with a Retry-After of an hour, `fake-backup` answers.
 *
 * Sessions on provider `fake` run with `fallbackModels: ["fake/fake-backup"]`; sessions on the
 * twin provider `fakeoff` (same endpoint, same two models) with `fallbackModels: []`, the
 * control: there the plugin must do what it does today and never touch the backup model. The
 * third twin `fakeback` runs a goal (and a short active-user window), so that turns go on with no
 * one writing: the return to the user's model after the Retry-After shows on the goal's continue.
 *
 * The stall budget is 8.5 s here (chunkTimeoutMs 8000 + grace 500): the fallback path aborts
 * the host's pending retry and continues after the plugin's usual five-second pause, which a
 * shorter budget could not hold.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { httpError, startFakeProvider, text, type FakeProvider, type RecordedRequest } from "./harness/fake-provider.ts"
import { buildConfig, createSession, messages, promptAsync, registerOpencodeCleanup, startOpencode, waitForIdle, type OpencodeHost } from "./harness/opencode-host.ts"
import { PLUGIN_URL, SHORT_BUDGETS, SHOW_MS, eventually, pluginMessages, pluginPromptRequests, quiet, sessionLog, warmUp } from "./support.ts"

const PRIMARY = "fake-model"
const BACKUP = "fake-backup"
const OFF = "fakeoff"
/** A third twin whose sessions run a goal, so that turns go on with no one writing (the return test). */
const BACK = "fakeback"
/** The return test's Retry-After: past the stall budget (so the backup takes over), short enough to wait out. */
const BACK_RETRY_AFTER_S = 14
const STALL_BUDGET_MS = 8_500
const RETRY_AFTER_S = 3_600

let provider: FakeProvider
let host: OpencodeHost

registerOpencodeCleanup(afterAll, () => provider?.stop())

beforeAll(async () => {
  provider = await startFakeProvider()
  const base = buildConfig({ providerUrl: provider.url }) as { provider: Record<string, any> }
  const fake = base.provider.fake
  const models = { ...fake.models, [BACKUP]: { name: "Fake Backup", tool_call: true, limit: { context: 128_000, output: 4_096 } } }
  host = await startOpencode({
    providerUrl: provider.url,
    plugins: [
      [
        PLUGIN_URL,
        {
          ...SHORT_BUDGETS,
          chunkTimeoutMs: 8_000,
          gracePeriodMs: 500,
          toolTextCheckDelayMs: 300,
          fallbackModels: [`fake/${BACKUP}`, "fake/not-a-model"],
          modelProfiles: {
            [OFF]: { fallbackModels: [] },
            [BACK]: { fallbackModels: [`${BACK}/${BACKUP}`], activeUserWindowMs: 1_500, goalMaxContinues: 1, injectIntervalMs: 1_000 },
          },
        },
      ],
    ],
    configExtra: {
      provider: { fake: { ...fake, models }, [OFF]: { ...fake, name: "Fake (no fallback)", models }, [BACK]: { ...fake, name: "Fake (goal)", models } },
      enabled_providers: ["fake", OFF, BACK],
    },
    logLevel: "DEBUG",
  })
  await warmUp(host, provider)
}, 90_000)

const modelOf = (r: RecordedRequest) => String(r.body?.model)
const log = (sessionID: string) => sessionLog(host, sessionID)

/** No two provider requests of the session were open at the same time. */
function oneAtATime(list: RecordedRequest[]): boolean {
  for (let i = 1; i < list.length; i++) {
    const before = list[i - 1]!
    if (before.closedAt === undefined || before.closedAt > list[i]!.at) return false
  }
  return true
}

/** `/auto-resume <args>` as the TUI runs it, answered locally: the reply's text. */
async function command(sessionID: string, args: string): Promise<string> {
  const mark = host.events.mark()
  const r = await host.client.session.command({ path: { id: sessionID }, body: { command: "auto-resume", arguments: args } as any })
  await waitForIdle(host, sessionID, 15_000, mark)
  return ((r.data as any)?.parts ?? []).filter((p: any) => p.type === "text").map((p: any) => p.text).join("")
}

describe("fallback models on OpenCode 1.18.33", () => {
  test("the unknown entry is named in one startup warning", () => {
    const warnings = sessionLogAll().filter((l) => /fallbackModels: the host knows no model/.test(l))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('"fake/not-a-model"')
    expect(warnings[0]).not.toContain(`fake/${BACKUP}`)
  })

  test(
    "429 with a Retry-After of an hour: the host's retry is ended, the session goes on on the backup within one stall budget, one turn at a time, and the user's next message goes back to the primary",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.setFallbackFor(PRIMARY, httpError(429, { retryAfter: RETRY_AFTER_S }))
      provider.setFallbackFor(BACKUP, text("Backup model answering."))
      try {
        const mark = host.events.mark()
        await promptAsync(host, sessionID, "hello on the primary")
        const switched = await eventually(() => provider.requests.slice(before).some((r) => modelOf(r) === BACKUP), 30_000, 50)
        expect(switched).toBe(true)
        await waitForIdle(host, sessionID, 20_000, mark)
        await quiet(provider, 1_500, 15_000)
        const during = provider.requests.slice(before)

        // The primary was asked once: the host's own retry an hour later never ran.
        const primary = during.filter((r) => modelOf(r) === PRIMARY)
        const backup = during.filter((r) => modelOf(r) === BACKUP)
        expect(primary).toHaveLength(1)
        expect(backup).toHaveLength(1)
        const retry = host.events.since(mark, sessionID).find((e) => e.type === "session.status" && e.properties.status?.type === "retry")
        expect(retry).toBeDefined()
        // `next` is when the host would send the request again (epoch ms); the 429 was answered just before.
        const retryIn = Number(retry!.properties.status.next) - primary[0]!.closedAt!
        // Within one stall budget of the 429, and never two requests at once.
        const switchMs = backup[0]!.at - primary[0]!.closedAt!
        console.log(`[fallback e2e] host retry scheduled ${Math.round(retryIn / 1000)} s ahead; backup request ${switchMs} ms after the 429 (stall budget ${STALL_BUDGET_MS} ms)`)
        expect(retryIn).toBeGreaterThan(STALL_BUDGET_MS)
        expect(switchMs).toBeLessThan(STALL_BUDGET_MS)
        expect(oneAtATime(during)).toBe(true)
        // The continue names the model that took over and why; it is our own message.
        const own = await pluginMessages(host, sessionID)
        expect(own).toHaveLength(1)
        const continueText = own[0]!.parts.map((p: any) => p.text ?? "").join("")
        expect(continueText).toContain(`fake/${PRIMARY} cannot go on for now`)
        expect(continueText).toContain(`fake/${BACKUP} takes over`)
        expect(continueText).toContain("rate limited")
        expect(own[0]!.info.model).toEqual({ providerID: "fake", modelID: BACKUP })
        expect(log(sessionID).filter((l) => /switching to fallback model fake\/fake-backup, ending the host's own retry first/.test(l))).toHaveLength(1)
        expect(log(sessionID).filter((l) => /cancelled by the user/.test(l))).toHaveLength(0)

        // Shown in the status while the episode runs (answered locally: no provider request).
        const report = await command(sessionID, "status")
        expect(report).toContain(`Fallback model: fake/${BACKUP}`)
        expect(report).toContain(`goes back to fake/${PRIMARY}`)

        // The user's next message (naming no model, so the host would take the last one's) goes to the primary.
        provider.setFallbackFor(PRIMARY, text("Primary model is back."))
        const next = provider.requests.length
        const mark2 = await promptAsync(host, sessionID, "and now?")
        await waitForIdle(host, sessionID, 20_000, mark2)
        await quiet(provider, 1_000, 10_000)
        const after = provider.requests.slice(next)
        expect(after.map(modelOf)).toEqual([PRIMARY])
        const history = await messages(host, sessionID)
        const lastUser = history.filter((m) => m.info.role === "user").at(-1)
        expect(lastUser?.info.model).toEqual({ providerID: "fake", modelID: PRIMARY })
        expect(log(sessionID).filter((l) => /the user's message goes back to fake\/fake-model/.test(l))).toHaveLength(1)
      } finally {
        provider.setFallbackFor(PRIMARY, undefined)
        provider.setFallbackFor(BACKUP, undefined)
        await host.client.session.delete({ path: { id: sessionID } })
        await quiet(provider, 800, 10_000)
      }
    },
    90_000,
  )

  test(
    "429 with a short Retry-After: once OpenCode gives up, the plugin's own 15-minute wait is spent on the backup instead, after the failed run ended",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.setFallbackFor(PRIMARY, httpError(429, { retryAfterMs: 50 }))
      provider.setFallbackFor(BACKUP, text("Backup model answering."))
      try {
        const mark = host.events.mark()
        await promptAsync(host, sessionID, "hello again on the primary")
        const switched = await eventually(() => provider.requests.slice(before).some((r) => modelOf(r) === BACKUP), 45_000, 50)
        expect(switched).toBe(true)
        await waitForIdle(host, sessionID, 20_000, mark)
        await quiet(provider, 1_500, 15_000)
        const during = provider.requests.slice(before)
        const primary = during.filter((r) => modelOf(r) === PRIMARY)
        const backup = during.filter((r) => modelOf(r) === BACKUP)
        const gaveUp = host.events.since(mark, sessionID).find((e) => e.type === "session.error")
        expect(gaveUp?.properties.error?.data?.statusCode).toBe(429)
        // OpenCode's own retries (measured: six requests), then exactly one turn on the backup.
        expect(primary.length).toBeGreaterThanOrEqual(2)
        expect(backup).toHaveLength(1)
        expect(oneAtATime(during)).toBe(true)
        const switchMs = backup[0]!.at - primary.at(-1)!.closedAt!
        console.log(`[fallback e2e] OpenCode gave up after ${primary.length} requests; backup request ${switchMs} ms after the last 429`)
        expect(switchMs).toBeLessThan(STALL_BUDGET_MS)
        const switchLines = log(sessionID).filter((l) => /switching to fallback model fake\/fake-backup/.test(l))
        expect(switchLines).toHaveLength(1)
        expect(switchLines[0]).toContain("the wait would be 15m 0s")
        expect(switchLines[0]).not.toContain("ending the host's own retry")
        expect(log(sessionID).filter((l) => /waiting until/.test(l))).toHaveLength(0)
        expect(await pluginMessages(host, sessionID)).toHaveLength(1)
      } finally {
        provider.setFallbackFor(PRIMARY, undefined)
        provider.setFallbackFor(BACKUP, undefined)
        await host.client.session.delete({ path: { id: sessionID } })
        await quiet(provider, 800, 10_000)
      }
    },
    90_000,
  )

  /**
   * A goal session on the BACK twin: a 429 with `retryAfterS`, the backup's turn streaming for
   * about 16 s, then the goal's one continue once that turn is over. What the provider was asked
   * (model, time from the 429) and what the plugin logged and sent.
   */
  async function goalAfterBackup(retryAfterS: number) {
    const sessionID = await createSession(host)
    try {
      expect(await command(sessionID, "goal work through the list")).toContain("goal set for this session")
      const before = provider.requests.length
      provider.setFallbackFor(PRIMARY, httpError(429, { retryAfter: retryAfterS }))
      // The backup's turn streams past the return test's Retry-After, so the return comes at its end.
      provider.setFallbackFor(BACKUP, text("Backup model working through the first items of the list now.", { chunks: 16, delayMs: 1_000 }))
      await promptAsync(host, sessionID, "work through the list", { model: { providerID: BACK, modelID: PRIMARY } })
      expect(await eventually(() => provider.requests.slice(before).some((r) => modelOf(r) === BACKUP), 30_000, 50)).toBe(true)
      provider.setFallbackFor(PRIMARY, text("Primary model answering."))
      provider.setFallbackFor(BACKUP, text("Backup model answering."))
      // The backup's turn, then the goal's continue: a third request, whichever model it goes to.
      expect(await eventually(() => provider.requests.length - before >= 3, 45_000, 100)).toBe(true)
      await quiet(provider, 1_500, 15_000)
      const during = provider.requests.slice(before)
      const lines = log(sessionID)
      console.log(`[fallback e2e return, Retry-After ${retryAfterS}s] requests: ${during.map((r) => `${modelOf(r)}@${r.at - during[0]!.at}ms`).join(", ")}; plugin lines:\n${lines.join("\n")}`)
      const own = (await pluginMessages(host, sessionID)).map((m: any) => String(m.info.model?.modelID)).filter((m) => m === PRIMARY || m === BACKUP)
      return { during, lines, own }
    } finally {
      provider.setFallbackFor(PRIMARY, undefined)
      provider.setFallbackFor(BACKUP, undefined)
      await host.client.session.delete({ path: { id: sessionID } })
      await quiet(provider, 800, 10_000)
    }
  }

  test(
    "back to the primary without writing: once the primary's Retry-After is over, the turn after the backup's (a goal continue) runs on the primary, and nothing extra is sent",
    async () => {
      const { during, lines, own } = await goalAfterBackup(BACK_RETRY_AFTER_S)
      // The 429, the backup's turn, then the goal's continue on the primary: no message of ours
      // for the going back itself. (The finished-turn judge may nudge after the goal stood
      // down, on whichever model is current: it is not what this test is about.)
      expect(during.slice(0, 3).map(modelOf)).toEqual([PRIMARY, BACKUP, PRIMARY])
      expect(own.slice(0, 2)).toEqual([BACKUP, PRIMARY])
      const backLines = lines.filter((l) => /back to fakeback\/fake-model after 1\ds, .*nothing is sent/.test(l))
      expect(backLines).toHaveLength(1)
      // Not before the Retry-After was over.
      expect(during[2]!.at - during[0]!.closedAt!).toBeGreaterThan(BACK_RETRY_AFTER_S * 1000 - 1_000)
    },
    120_000,
  )

  test(
    "control: with a Retry-After of an hour the same goal continue after the backup's turn stays on the backup",
    async () => {
      const { during, lines, own } = await goalAfterBackup(RETRY_AFTER_S)
      expect(during.slice(0, 3).map(modelOf)).toEqual([PRIMARY, BACKUP, BACKUP])
      expect(own.slice(0, 2)).toEqual([BACKUP, BACKUP])
      expect(lines.filter((l) => /back to fakeback/.test(l))).toHaveLength(0)
    },
    120_000,
  )

  test(
    "control: the same 429 on a provider whose fallbackModels is empty never reaches the backup model",
    async () => {
      const sessionID = await createSession(host)
      const before = provider.requests.length
      provider.setFallbackFor(PRIMARY, httpError(429, { retryAfter: RETRY_AFTER_S }))
      provider.setFallbackFor(BACKUP, text("Backup model answering."))
      try {
        await promptAsync(host, sessionID, "hello on the primary, no fallback", { model: { providerID: OFF, modelID: PRIMARY } })
        await eventually(() => provider.requests.length > before, 20_000, 50)
        // A switch could show at two moments: right after the 429 (the first test's path, about
        // 5 s) or with the stall recovery's continue, a stall budget and the abort pause later
        // (about 14.5 s). So: until that continue reached the provider, bounded by a stall budget
        // and the abort pause with room to spare, and then a second for anything it set off.
        await eventually(() => pluginPromptRequests(provider, before).length > 0, STALL_BUDGET_MS + 8_000, 100)
        await quiet(provider, SHOW_MS, 10_000)
        const during = provider.requests.slice(before)
        expect(during.filter((r) => modelOf(r) === BACKUP)).toHaveLength(0)
        expect(during.length).toBeGreaterThanOrEqual(1)
        expect(log(sessionID).filter((l) => /fallback/i.test(l))).toHaveLength(0)
        for (const m of await pluginMessages(host, sessionID)) expect(m.info.model?.modelID).toBe(PRIMARY)
        console.log(`[fallback e2e control] requests: ${during.map((r) => `${r.body?.model}`).join(", ")}; plugin lines:\n${log(sessionID).join("\n")}`)
      } finally {
        provider.setFallbackFor(PRIMARY, undefined)
        provider.setFallbackFor(BACKUP, undefined)
        await host.client.session.delete({ path: { id: sessionID } })
        await quiet(provider, 800, 10_000)
      }
    },
    90_000,
  )
})

function sessionLogAll(): string[] {
  return sessionLog(host, "")
}
