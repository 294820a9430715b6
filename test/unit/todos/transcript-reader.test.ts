import { describe, expect, test } from "bun:test"
import { MAX_TODO_ITEMS, readTodoInput, readTodosFromTranscript } from "../../../src/todos/transcript-reader.ts"
import { assistant, said, todoWrite, tool, user } from "../../fixtures/transcript-builders.ts"

const first = [{ content: "one", status: "pending" }]
const second = [
  { content: "one", status: "completed" },
  { content: "two", status: "in_progress", priority: "high" },
]

describe("todo list from the transcript: newest completed todowrite part", () => {
  test("reads the items of the newest completed call", () => {
    const log = [user("go"), todoWrite(first), said("working"), todoWrite(second), said("ok")]
    expect(readTodosFromTranscript(log)).toEqual(second)
  })

  test("within one message the later part wins", () => {
    const m = assistant([tool("todowrite", "completed", { todos: first }), tool("todowrite", "completed", { todos: second })])
    expect(readTodosFromTranscript([m])).toEqual(second)
  })

  test("pending, running and failed calls are skipped", () => {
    const log = [todoWrite(first), todoWrite(second, "running"), todoWrite(second, "error"), todoWrite(second, "pending")]
    expect(readTodosFromTranscript(log)).toEqual(first)
  })

  test("the tool name is matched in any case; other tools are ignored", () => {
    expect(readTodosFromTranscript([assistant([tool("TodoWrite", "completed", { todos: first })])])).toEqual(first)
    expect(readTodosFromTranscript([assistant([tool("todoread", "completed", { todos: first })])])).toBe("none")
  })

  test("no todowrite call at all means no list", () => {
    expect(readTodosFromTranscript([user("hi"), said("hello")])).toBe("none")
    expect(readTodosFromTranscript([])).toBe("none")
  })

  test("an empty list is a list", () => {
    expect(readTodosFromTranscript([todoWrite([])])).toEqual([])
  })

  test("extra fields are dropped; priority is kept when it is a string", () => {
    expect(readTodoInput({ todos: [{ content: "a", status: "pending", id: "1", priority: "low" }] })).toEqual([
      { content: "a", status: "pending", priority: "low" },
    ])
  })

  test.each([
    ["input missing", undefined],
    ["input not an object", "todos"],
    ["todos missing", {}],
    ["todos not an array", { todos: "a, b" }],
    ["an item that is not an object", { todos: ["a"] }],
    ["an item without content", { todos: [{ status: "pending" }] }],
    ["an item without status", { todos: [{ content: "a" }] }],
    ["a non-string status", { todos: [{ content: "a", status: 1 }] }],
    ["a non-string priority", { todos: [{ content: "a", status: "pending", priority: 2 }] }],
    ["one bad item among good ones", { todos: [{ content: "a", status: "pending" }, null] }],
    ["an absurdly long list", { todos: Array.from({ length: MAX_TODO_ITEMS + 1 }, () => ({ content: "a", status: "pending" })) }],
    [
      "a getter that throws",
      {
        get todos() {
          throw new Error("boom")
        },
      },
    ],
  ])("malformed input is unreadable: %s", (_name, input) => {
    expect(readTodoInput(input)).toBe("unreadable")
    expect(readTodosFromTranscript([assistant([tool("todowrite", "completed", input)])])).toBe("unreadable")
  })

  test("a malformed newest call hides an older good one: unreadable, not stale", () => {
    expect(readTodosFromTranscript([todoWrite(first), todoWrite("garbage")])).toBe("unreadable")
  })
})
