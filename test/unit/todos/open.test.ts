import { describe, expect, test } from "bun:test"
import { allTodosClosed, isOpenTodo, openTodos } from "../../../src/todos/open.ts"
import { closedList, openList } from "../../fixtures/transcript-builders.ts"

describe("open todos", () => {
  test.each([
    ["pending", true],
    ["in_progress", true],
    ["completed", false],
    ["cancelled", false],
    ["open", false],
    ["PENDING", false],
    ["", false],
  ])("status %p is open: %p", (status, open) => {
    expect(isOpenTodo({ content: "x", status })).toBe(open)
  })

  test("openTodos keeps list order and only open items", () => {
    expect(openTodos(openList).map((t) => t.content)).toEqual(["Verify the plugin loads", "Write the README section"])
    expect(openTodos(closedList)).toEqual([])
    expect(openTodos([])).toEqual([])
  })

  test("no list and an unreadable list have no open items", () => {
    expect(openTodos("none")).toEqual([])
    expect(openTodos("unreadable")).toEqual([])
    expect(openTodos(undefined)).toEqual([])
  })

  test("allTodosClosed needs a real, non-empty list with nothing open", () => {
    expect(allTodosClosed(closedList)).toBe(true)
    expect(allTodosClosed(openList)).toBe(false)
    expect(allTodosClosed([])).toBe(false)
    expect(allTodosClosed("none")).toBe(false)
    expect(allTodosClosed("unreadable")).toBe(false)
  })
})
