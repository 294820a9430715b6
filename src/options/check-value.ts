/** Checking one option value against its spec, for config values and, as a second check, for environment values. */
import type { Spec } from "./spec-builders.ts"
import { errorText, preview } from "./safe-read.ts"

export type Outcome =
  /** Use `value`; `dropped` lists list entries that were skipped on the way. */
  | { kind: "use"; value: unknown; dropped?: string[] }
  /** Unusable: fall back, and say why. */
  | { kind: "reject"; reason: string }
  /** Treated as not given, silently (undefined, null, or an empty pattern list). */
  | { kind: "absent" }

/** Why one list entry is dropped, or undefined when it is kept. */
function entryProblem(list: Spec["info"]["list"], entry: unknown): string | undefined {
  if (typeof entry !== "string") return "not a string"
  // A blank pattern matches every text (and a blank name nothing useful): never intended.
  if (entry.trim() === "") return "blank"
  if (list === "regex") {
    try {
      new RegExp(entry)
    } catch (error) {
      return errorText(error)
    }
  }
  if (list === "models" && !/^[^/\s]+\/\S+$/.test(entry.trim())) return 'expected "provider/model"'
  return undefined
}

function checkList(spec: Spec, value: unknown): Outcome {
  if (!Array.isArray(value)) return { kind: "reject", reason: `expected a list of strings, got ${preview(value)}` }
  const kept: string[] = []
  const dropped: string[] = []
  for (const entry of value) {
    const problem = entryProblem(spec.info.list, entry)
    if (problem !== undefined) dropped.push(`${preview(entry)} (${problem})`)
    else kept.push(spec.info.list === "models" ? (entry as string).trim() : (entry as string))
  }
  if (kept.length > 0) return dropped.length > 0 ? { kind: "use", value: kept, dropped } : { kind: "use", value: kept }
  if (dropped.length > 0) return { kind: "reject", reason: `no usable entries (${dropped.join(", ")})` }
  // An empty list: pattern lists document "empty keeps the built-in set"; for name lists an
  // empty list is a real choice (e.g. interrupt any tool).
  return spec.info.list === "regex" ? { kind: "absent" } : { kind: "use", value: [] }
}

export function checkValue(spec: Spec, value: unknown): Outcome {
  if (value === undefined || value === null) return { kind: "absent" }
  try {
    if (spec.info.list !== undefined) return checkList(spec, value)
    const result = spec.inner.safeParse(value)
    if (result.success) return { kind: "use", value: result.data }
    const issue = result.error.issues[0]
    const where = issue && issue.path.length > 0 ? `entry ${issue.path.join(".")}: ` : ""
    return { kind: "reject", reason: `${where}${issue?.message ?? "invalid value"}, got ${preview(value)}` }
  } catch (error) {
    // A proxy or getter inside the value blew up while being inspected.
    return { kind: "reject", reason: `the value could not be read (${errorText(error)})` }
  }
}
