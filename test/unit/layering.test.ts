/**
 * The import rules of src/, read from the import lines of every file:
 *  - the pure layers (core, detect, and todos, prompts, options, which the core uses) know
 *    nothing of the host, the state files, the pause command or the CLI, nor of a todo reader
 *    named after a host;
 *  - the state files (stores/) know nothing of who uses them: the host, the command, the CLI;
 *  - neither adapter reaches into the other (what both need lives once under host/ or core/);
 *  - the engine and the runtime name no recovery path: whoever starts the engine hands it the
 *    list (paths/index.ts), and the host reaches the paths only through that list;
 *  - a path asks the runtime whether it may act (StepContext.mayAct) and never works it out
 *    from the holds and the in-flight record itself.
 */
import { describe, expect, test } from "bun:test"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, normalize, relative } from "node:path"

type Rule = { from: RegExp; to: RegExp; why: string }

const PURE = /^(core|detect|todos|prompts|options|runtime|paths)\//
const RULES: Rule[] = [
  { from: PURE, to: /^(host|stores|pause|cli)\//, why: "a pure layer imports I/O" },
  { from: /^stores\//, to: /^(host|pause|cli)\//, why: "a store imports its user" },
  { from: /^(core|detect)\//, to: /^todos\/v\d+-/, why: "the core reads todos through a host's reader" },
  { from: /^(runtime|core)\//, to: /^paths\//, why: "the engine or runtime names a path (it is handed paths/index.ts)" },
  { from: /^host\//, to: /^paths\/[^/]+\//, why: "a path is reached by name instead of through paths/index.ts" },
  { from: /^paths\//, to: /^core\/(context|intervention|actions)\.ts$/, why: "a path answers 'may we act?' itself instead of asking mayAct" },
  { from: /^host\/v1\//, to: /^host\/v2\//, why: "the 1.x adapter imports the 2.x one" },
  { from: /^host\/v2\//, to: /^host\/v1\//, why: "the 2.x adapter imports the 1.x one" },
]

/** Relative module specifiers of every import, export-from and dynamic import in `text`. */
export function importsOf(text: string): string[] {
  const found: string[] = []
  const patterns = [/\bfrom\s*["'](\.[^"']*)["']/g, /\bimport\s*\(?\s*["'](\.[^"']*)["']/g]
  for (const pattern of patterns) for (const m of text.matchAll(pattern)) found.push(m[1]!)
  return found
}

/** Every edge of `files` (path under src/ -> text) that breaks a rule. */
export function brokenEdges(files: ReadonlyMap<string, string>): string[] {
  const broken: string[] = []
  for (const [file, text] of files) {
    for (const spec of importsOf(text)) {
      const target = normalize(join(dirname(file), spec)).replaceAll("\\", "/")
      for (const rule of RULES) {
        if (rule.from.test(file) && rule.to.test(target)) broken.push(`${file} -> ${target}: ${rule.why}`)
      }
    }
  }
  return broken
}

function sourceFiles(root: string): Map<string, string> {
  const files = new Map<string, string>()
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith(".ts")) files.set(relative(root, path).replaceAll("\\", "/"), readFileSync(path, "utf8"))
    }
  }
  walk(root)
  return files
}

describe("layering of src/", () => {
  test("no file of src/ breaks an import rule", () => {
    const files = sourceFiles(join(import.meta.dir, "../../src"))
    expect(files.size).toBeGreaterThan(50)
    expect(files.has("core/engine.ts")).toBe(true)
    expect(brokenEdges(files)).toEqual([])
  })

  test("each rule catches its edge (negative controls)", () => {
    const files = new Map([
      ["core/engine.ts", `import { x } from "../host/v1/port.ts"`],
      ["detect/text.ts", `export { y } from "../pause/command.ts"`],
      ["options/index.ts", `const m = await import("../cli/auto-resume-toggle.ts")`],
      ["core/idle.ts", `import {\n  readTodos,\n} from "../todos/v2-reader.ts"`],
      ["host/v1/adapter.ts", `import type { W } from "../v2/watch-state.ts"`],
      ["host/v2/adapter.ts", `import { a } from "../v1/events.ts"`],
      ["runtime/paths.ts", `import { recoveryPaths } from "../paths/index.ts"`],
      ["core/take-over.ts", `import { recoveryPaths } from "../paths/index.ts"`],
      ["host/instance.ts", `import { stallPath } from "../paths/stall/path.ts"`],
      ["core/status.ts", `import { FilePauses } from "../stores/file-pauses.ts"`],
      ["stores/file-pauses.ts", `import type { PauseCommandHost } from "../host/pause-command.ts"`],
      ["stores/wait-file.ts", `import { waitStatusLines } from "../cli/rate-wait-lines.ts"`],
      ["paths/loops/path.ts", `import { ownHold } from "../../core/intervention.ts"`],
    ])
    expect(brokenEdges(files)).toEqual([
      "core/engine.ts -> host/v1/port.ts: a pure layer imports I/O",
      "detect/text.ts -> pause/command.ts: a pure layer imports I/O",
      "options/index.ts -> cli/auto-resume-toggle.ts: a pure layer imports I/O",
      "core/idle.ts -> todos/v2-reader.ts: the core reads todos through a host's reader",
      "host/v1/adapter.ts -> host/v2/watch-state.ts: the 1.x adapter imports the 2.x one",
      "host/v2/adapter.ts -> host/v1/events.ts: the 2.x adapter imports the 1.x one",
      "runtime/paths.ts -> paths/index.ts: the engine or runtime names a path (it is handed paths/index.ts)",
      "core/take-over.ts -> paths/index.ts: the engine or runtime names a path (it is handed paths/index.ts)",
      "host/instance.ts -> paths/stall/path.ts: a path is reached by name instead of through paths/index.ts",
      "core/status.ts -> stores/file-pauses.ts: a pure layer imports I/O",
      "stores/file-pauses.ts -> host/pause-command.ts: a store imports its user",
      "stores/wait-file.ts -> cli/rate-wait-lines.ts: a store imports its user",
      "paths/loops/path.ts -> core/intervention.ts: a path answers 'may we act?' itself instead of asking mayAct",
    ])
  })

  test("the edges the rules allow pass", () => {
    const files = new Map([
      ["core/engine.ts", `import { a } from "./port.ts"\nimport { b } from "../options/index.ts"\nimport { c } from "../todos/transcript-reader.ts"`],
      ["host/v1/adapter.ts", `import { d } from "../watch-state.ts"\nimport { e } from "../../core/engine.ts"`],
      ["host/v2/port.ts", `import { f } from "./messages.ts"\nimport { g } from "../send-log.ts"`],
      ["pause/command.ts", `import { h } from "../host/shape.ts"`],
      ["host/instance.ts", `import { recoveryPaths } from "../paths/index.ts"`],
      ["stores/pause-lease.ts", `import { droppedText } from "../prompts/hold-text.ts"\nimport { tidyPauses } from "../core/pause-leases.ts"`],
      ["cli/auto-resume-toggle.ts", `import { PauseMarkerFile } from "../stores/pause-marker.ts"`],
      ["paths/stall/path.ts", `import type { RecoveryPath } from "../../runtime/path.ts"\nimport { isGuard } from "../../runtime/may-act.ts"`],
    ])
    expect(brokenEdges(files)).toEqual([])
  })
})
