import { describe, expect, test } from "bun:test"
import { addNewest, boundedSet, BoundedMap, makeRoom } from "../../../src/core/bounded.ts"

describe("BoundedMap", () => {
  test("a new key in a full map forgets the oldest entry", () => {
    const map = new BoundedMap<string, number>(2)
    map.set("a", 1).set("b", 2).set("c", 3)
    expect([...map.keys()]).toEqual(["b", "c"])
    expect(map.size).toBe(2)
  })

  test("rewriting a held key in a full map drops nothing and keeps its place", () => {
    const map = new BoundedMap<string, number>(2)
    map.set("a", 1).set("b", 2).set("a", 9)
    expect([...map.entries()]).toEqual([
      ["a", 9],
      ["b", 2],
    ])
    map.set("c", 3)
    expect([...map.keys()]).toEqual(["b", "c"])
  })

  test("with refresh, a rewrite makes the key the newest, so another one goes first", () => {
    const map = new BoundedMap<string, number>(2, { refresh: true })
    map.set("a", 1).set("b", 2).set("a", 9).set("c", 3)
    expect([...map.entries()]).toEqual([
      ["a", 9],
      ["c", 3],
    ])
  })

  test("onEvict hears what made room, not plain deletes", () => {
    const evicted: [string, number][] = []
    const map = new BoundedMap<string, number>(1, { onEvict: (k, v) => evicted.push([k, v]) })
    map.set("a", 1)
    map.delete("a")
    map.set("b", 2).set("c", 3)
    expect(evicted).toEqual([["b", 2]])
  })

  test("getOrCreate makes once; with refresh it is least-recently-used", () => {
    let made = 0
    const make = () => ++made
    const lru = new BoundedMap<string, number>(2, { refresh: true })
    expect(lru.getOrCreate("a", make)).toBe(1)
    lru.getOrCreate("b", make)
    expect(lru.getOrCreate("a", make)).toBe(1) // read: now the newest
    lru.getOrCreate("c", make)
    expect([...lru.keys()]).toEqual(["a", "c"])
    expect(made).toBe(3)

    const fifo = new BoundedMap<string, number>(2)
    fifo.getOrCreate("a", make)
    fifo.getOrCreate("b", make)
    fifo.getOrCreate("a", make) // a read does not move it without refresh
    fifo.getOrCreate("c", make)
    expect([...fifo.keys()]).toEqual(["b", "c"])
  })

  test("never holds more than its cap, whatever is written", () => {
    const map = new BoundedMap<number, number>(5, { refresh: true })
    for (let i = 0; i < 1000; i++) map.set(i % 17, i)
    expect(map.size).toBe(5)
  })
})

describe("boundedSet / makeRoom / addNewest on plain collections", () => {
  test("boundedSet evicts the oldest for a new key only", () => {
    const map = new Map([
      ["a", 1],
      ["b", 2],
    ])
    boundedSet(map, "b", 5, 2)
    expect([...map.keys()]).toEqual(["a", "b"])
    boundedSet(map, "c", 3, 2)
    expect([...map.keys()]).toEqual(["b", "c"])
  })

  test("makeRoom drops the oldest entry the predicate lets go, and nothing below the cap", () => {
    const map = new Map([
      ["held", { held: true }],
      ["free", { held: false }],
      ["free2", { held: false }],
    ])
    makeRoom(map, 4, () => true)
    expect(map.size).toBe(3)
    makeRoom(map, 3, (v) => !v.held)
    expect([...map.keys()]).toEqual(["held", "free2"])
    const allHeld = new Map([["x", { held: true }]])
    makeRoom(allHeld, 1, (v) => !v.held)
    expect(allHeld.size).toBe(1)
  })

  test("addNewest moves a value to the back and forgets the oldest when full", () => {
    const set = new Set(["a", "b"])
    addNewest(set, "a", 2)
    expect([...set]).toEqual(["b", "a"])
    addNewest(set, "c", 2)
    expect([...set]).toEqual(["a", "c"])
  })
})
