/**
 * The history, proven inside a real OpenCode 1.18.33 server with a scripted fake provider: a
 * stream that hangs is recovered, and the journal file beside the pause marker then holds one
 * `revived` stall entry for the session, which `auto-resume-toggle history` (a separate Node
 * process) prints and `/auto-resume history` shows in the session. A healthy session adds none.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import fs from "node:fs"
import path from "node:path"
import { hangAfter, startFakeProvider, text, type FakeProvider } from "./harness/fake-provider.ts"
import { createSession, promptAsync, registerOpencodeCleanup, startOpencode, waitForIdle, type OpencodeHost } from "./harness/opencode-host.ts"
import { PLUGIN_URL, SHORT_BUDGETS, eventually, lastAssistantText, sleep, warmUp } from "./support.ts"

const STALL_MS = SHORT_BUDGETS.chunkTimeoutMs + SHORT_BUDGETS.gracePeriodMs
const REPO = path.resolve(import.meta.dir, "..", "..")
const BIN = path.join(REPO, "bin", "auto-resume-toggle.mjs")

let provider: FakeProvider
let host: OpencodeHost
let journal: string

registerOpencodeCleanup(afterAll, () => provider?.stop())

beforeAll(async () => {
  provider = await startFakeProvider()
  host = await startOpencode({ providerUrl: provider.url, plugins: [[PLUGIN_URL, SHORT_BUDGETS]], logLevel: "DEBUG" })
  journal = path.join(host.root, "config", "opencode", "auto-resume.history.jsonl")
  await warmUp(host, provider)
}, 90_000)

function entriesOf(sessionID: string): any[] {
  if (!fs.existsSync(journal)) return []
  return fs
    .readFileSync(journal, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((e) => e.sessionID === sessionID)
}

function toggle(...args: string[]) {
  return spawnSync("node", [BIN, ...args], {
    encoding: "utf8",
    timeout: 30_000,
    env: { PATH: process.env.PATH ?? "", HOME: path.join(host.root, "home"), XDG_CONFIG_HOME: path.join(host.root, "config"), TZ: "UTC" },
  })
}

describe("the history on OpenCode 1.18.33", () => {
  test(
    "a recovered stall is one `revived` stall entry; auto-resume-toggle history prints it and /auto-resume history shows it",
    async () => {
      const sessionID = await createSession(host)
      provider.enqueue(hangAfter("Let me look into"))
      provider.setFallback(text("Recovered: the answer is 42."))
      await promptAsync(host, sessionID, "what is the answer?")
      expect(await eventually(async () => (await lastAssistantText(host, sessionID)).includes("Recovered"), 30_000, 100)).toBe(true)
      await waitForIdle(host, sessionID, 15_000, 0)

      expect(await eventually(async () => entriesOf(sessionID).length > 0, 15_000, 100)).toBe(true)
      const entries = entriesOf(sessionID)
      expect(entries).toHaveLength(1)
      expect(entries[0]).toMatchObject({ sessionID, trigger: "stall", outcome: "revived" })
      expect(entries[0].evidence).toMatch(/^silent for \d/)
      expect(entries[0].action).toMatch(/continue/)
      expect(fs.statSync(journal).mode & 0o777).toBe(0o600)

      const table = toggle("history", sessionID)
      expect(table.status).toBe(0)
      const lines = table.stdout.trimEnd().split("\n")
      expect(lines[0]).toMatch(/^TIME\s+SESSION\s+TRIGGER\s+EVIDENCE\s+ACTION\s+OUTCOME$/)
      expect(lines).toHaveLength(2)
      expect(lines[1]).toMatch(/\bstall\s+silent for .*continue\s+revived$/)
      const json = toggle("history", sessionID, "--json")
      expect(json.stdout.trimEnd().split("\n").map((l) => JSON.parse(l))).toEqual(entries)

      const mark = host.events.mark()
      const reply = await host.client.session.command({ path: { id: sessionID }, body: { command: "auto-resume", arguments: "history" } as any })
      await waitForIdle(host, sessionID, 15_000, mark)
      const shown = (reply.data?.parts ?? []).filter((p: any) => p.type === "text").map((p: any) => p.text).join("")
      expect(shown).toMatch(/stall \(silent for [^)]*\) -> .*continue: revived/)
    },
    90_000,
  )

  test(
    "negative control: a healthy session adds nothing to the history",
    async () => {
      const sessionID = await createSession(host)
      provider.enqueue(text("All good here."))
      await promptAsync(host, sessionID, "say something")
      await waitForIdle(host, sessionID, 20_000)
      await sleep(3 * STALL_MS)
      expect(entriesOf(sessionID)).toEqual([])
      const table = toggle("history", sessionID)
      expect(table.stdout).toMatch(/^No interventions recorded for session/)
    },
    60_000,
  )
})
