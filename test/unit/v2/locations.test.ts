/**
 * One live instance per location on 2.x (ctx.location: directory, plus workspace), through
 * startV2 on the fake host: another location's setup leaves the first running, a re-run setup
 * for the same location supersedes it, and the send spacing spans every location.
 */
import { describe, expect, test } from "bun:test"
import { getSlot, v2SlotKey } from "../../../src/host/v2/registry.ts"
import { slotKey } from "../../../src/host/registry.ts"
import { FakeV2Host, type FakeV2Options } from "../../support/fake-v2-host.ts"
import { BUDGET, RECOVERED, freshScope, makeV2, sends, SID, type V2Rig } from "./harness.ts"

/** A second host in the same process (same clock, same options), at another location by default. */
function hostAt(r: V2Rig, opts: FakeV2Options = {}): FakeV2Host {
  return new FakeV2Host({ now: () => r.time.now(), options: (r.host.ctx as { options: unknown }).options, ...opts })
}

describe("two locations in one process", () => {
  test("a setup for another directory leaves the first running, and both recover their own stall", async () => {
    const r = makeV2()
    const other = hostAt(r, { directory: "/work/second-project" })
    const second = r.restart({}, other)
    expect(r.instance.stopped).toBe(false)
    expect(second.stopped).toBe(false)
    expect(second.slot).not.toBe(r.instance.slot)
    r.host.userTurn("ses_first")
    other.userTurn("ses_second")
    await r.advance(RECOVERED)
    expect(r.host.callsTo("session.prompt").map((c) => (c.args[0] as { sessionID: string }).sessionID)).toEqual(["ses_first"])
    expect(other.callsTo("session.prompt").map((c) => (c.args[0] as { sessionID: string }).sessionID)).toEqual(["ses_second"])
    r.instance.stop()
    second.stop()
  })

  test("the same directory in another workspace is another location", async () => {
    const r = makeV2({ host: { workspaceID: "wrk_a" } })
    const other = hostAt(r, { workspaceID: "wrk_b" })
    const second = r.restart({}, other)
    expect(r.instance.stopped).toBe(false)
    r.host.userTurn("ses_first")
    other.userTurn("ses_second")
    await r.advance(RECOVERED)
    expect(sends(r.host)).toBe(1)
    expect(sends(other)).toBe(1)
    r.instance.stop()
    second.stop()
  })

  test("stopping one location's instance leaves the other's running", async () => {
    const r = makeV2()
    const other = hostAt(r, { directory: "/work/second-project" })
    const second = r.restart({}, other)
    r.instance.stop()
    other.userTurn("ses_second")
    await r.advance(RECOVERED)
    expect(second.stopped).toBe(false)
    expect(sends(other)).toBe(1)
    second.stop()
  })

  test("the send spacing spans locations: a session both instances hear gets one continue", async () => {
    const r = makeV2()
    const other = hostAt(r, { directory: "/work/second-project" })
    const second = r.restart({}, other)
    // One session whose events reach both instances (a host whose bus is not filtered).
    r.host.userTurn(SID)
    other.userTurn(SID)
    await r.advance(RECOVERED)
    expect(sends(r.host) + sends(other)).toBe(1)
    expect(second.slot.sendLog).toBe(r.instance.slot.sendLog)
    expect(second.slot.own).toBe(r.instance.slot.own)
    r.instance.stop()
    second.stop()
  })

  test("negative control: in another registry scope nothing is shared, and the same timeline gets two", async () => {
    const r = makeV2()
    const other = hostAt(r, { directory: "/work/second-project" })
    const second = r.restart({ registryScope: freshScope() }, other)
    r.host.userTurn(SID)
    other.userTurn(SID)
    await r.advance(RECOVERED)
    expect(sends(r.host) + sends(other)).toBe(2)
    r.instance.stop()
    second.stop()
  })
})

describe("a re-run setup for the same location", () => {
  test("supersedes the earlier instance, which sends nothing; the new one recovers", async () => {
    const r = makeV2()
    const reloaded = hostAt(r) // same directory, a fresh ctx, the old one never disposed
    const second = r.restart({}, reloaded)
    expect(r.instance.stopped).toBe(true)
    expect(r.logged(new RegExp(`instance #${r.instance.serial} stopped \\(superseded by instance #${second.serial}\\)`))).toBe(true)
    r.host.userTurn(SID)
    reloaded.userTurn(SID)
    await r.advance(RECOVERED)
    expect(sends(r.host)).toBe(0)
    expect(sends(reloaded)).toBe(1)
    second.stop()
  })

  test("a trailing separator names the same location", async () => {
    const r = makeV2()
    const second = r.restart({}, hostAt(r, { directory: "/work/project/" }))
    expect(r.instance.stopped).toBe(true)
    second.stop()
  })

  test("a ctx with no location falls back to one instance per scope, as before", async () => {
    const r = makeV2()
    r.instance.stop()
    delete (r.host.ctx as { location?: unknown }).location
    const first = r.restart()
    const bare = hostAt(r)
    delete (bare.ctx as { location?: unknown }).location
    const second = r.restart({}, bare)
    expect(first.stopped).toBe(true)
    expect(second.stopped).toBe(false)
    second.stop()
  })

  test("negative control: without the re-run both instances of two locations live on", async () => {
    const r = makeV2()
    const second = r.restart({}, hostAt(r, { directory: "/work/elsewhere" }))
    expect(r.instance.stopped).toBe(false)
    expect(second.stopped).toBe(false)
    r.instance.stop()
    second.stop()
  })
})

describe("slot keys", () => {
  test("scope plus directory and workspace; the scope alone without a location", () => {
    const scope = slotKey("keys")
    expect(v2SlotKey(scope, undefined)).toBe(scope)
    expect(v2SlotKey(scope, {})).toBe(scope)
    expect(v2SlotKey(scope, { directory: "/a" })).toBe(v2SlotKey(scope, { directory: "/a/" }))
    expect(v2SlotKey(scope, { directory: "/a" })).not.toBe(v2SlotKey(scope, { directory: "/a", workspaceID: "w" }))
    // A directory holding the separator cannot pass for another directory plus a workspace.
    expect(v2SlotKey(scope, { directory: '/a","w' })).not.toBe(v2SlotKey(scope, { directory: "/a", workspaceID: "w" }))
    expect(getSlot(scope, { directory: "/a" }).sendLog).toBe(getSlot(scope, { directory: "/b" }).sendLog)
    expect(getSlot(scope, { directory: "/a" }).sendLog).not.toBe(getSlot(slotKey("other-keys"), { directory: "/a" }).sendLog)
  })
})
