/** The universal entry: one default export, the right adapter per host, inert on anything else. */
import { beforeAll, describe, expect, test } from "bun:test"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import * as entry from "../../src/index.ts"
import { isRealV2Context } from "../../src/host/detect.ts"

const plugin = entry.default

// server() resets the pause marker file at start: keep it away from the real home folder.
beforeAll(() => {
  process.env.XDG_CONFIG_HOME = fs.mkdtempSync(path.join(os.tmpdir(), "ar-entry-"))
})

function fakeV1Client() {
  const logs: { level: string; message: string }[] = []
  return {
    logs,
    client: {
      session: { promptAsync: async () => ({ data: {} }), abort: async () => ({ data: true }) },
      app: { log: async (o: { body: { level: string; message: string } }) => logs.push(o.body) },
    },
  }
}

describe("universal entry", () => {
  test("exports only the default plugin object with id, server and setup", () => {
    expect(Object.keys(entry)).toEqual(["default"])
    expect(plugin.id).toBe("opencode-auto-resume")
    expect(typeof plugin.server).toBe("function")
    expect(typeof plugin.setup).toBe("function")
  })

  test("server() on a 1.x input returns hooks and logs one startup line", async () => {
    const { client, logs } = fakeV1Client()
    const hooks = await plugin.server({ client, serverUrl: new URL("http://127.0.0.1:1") } as never, { chunkTimeoutMs: 60_000 })
    expect(Object.keys(hooks).sort()).toEqual([
      "chat.message",
      "command.execute.before",
      "config",
      "dispose",
      "event",
      "experimental.chat.messages.transform",
      "tool",
      "tool.execute.after",
      "tool.execute.before",
    ])
    await Promise.resolve()
    const startup = logs.filter((l) => l.message.startsWith("opencode-auto-resume "))
    expect(startup).toHaveLength(1)
    expect(startup[0]!.message).toContain("host=v1")
    expect(startup[0]!.message).toContain("chunkTimeoutMs=60000")
    expect(startup[0]!.message).toContain("accepted-but-inert=")
  })

  test("server() without serverUrl is inert with one diagnostic, never a throw", async () => {
    const { client, logs } = fakeV1Client()
    const hooks = await plugin.server({ client } as never)
    expect(hooks).toEqual({})
    await Promise.resolve()
    expect(logs.filter((l) => /serverUrl is missing/.test(l.message))).toHaveLength(1)
    expect(await plugin.server(undefined as never)).toEqual({})
  })

  test("hooks never throw into the host, whatever they are given", async () => {
    const { client } = fakeV1Client()
    const hooks = await plugin.server({ client, serverUrl: new URL("http://127.0.0.1:1") } as never)
    for (const [name, hook] of Object.entries(hooks)) {
      if (typeof hook !== "function") continue
      for (const args of [[], [undefined, undefined], [null, null], [{ event: null }], [{ sessionID: 5 }, { parts: "x" }]]) {
        await expect((hook as (...a: unknown[]) => Promise<void>)(...args)).resolves.toBeUndefined()
      }
      expect(name).toBeString()
    }
  })

  test("setup() on the 1.18 preview ctx does nothing (the plugin must not run twice)", () => {
    const previewCtx = { options: {}, agent: {}, aisdk: {}, catalog: {}, command: {}, integration: {}, plugin: {}, reference: {}, skill: {} }
    expect(isRealV2Context(previewCtx)).toBe(false)
    expect(plugin.setup(previewCtx)).toBeUndefined()
    expect(isRealV2Context({ app: { version: "2.0.22" }, session: {}, event: {} })).toBe(true)
    expect(isRealV2Context(null)).toBe(false)
  })
})
