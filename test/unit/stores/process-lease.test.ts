/**
 * The process's lease at exit, in real child processes: a normal exit takes it out of the
 * file (so a restart lifts that process's pauses at once); SIGKILL leaves it behind, and it
 * then only lapses. The child runs FilePauses as the host adapters do (process identity, a
 * real timer).
 */
import { afterEach, describe, expect, test } from "bun:test"
import { spawn, spawnSync } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { PauseMarkerFile } from "../../../src/stores/pause-marker.ts"

const BUN = process.execPath
const MODULE = path.resolve(import.meta.dir, "../../../src/stores/file-pauses.ts")

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function script(file: string, then: string): string {
  return `
import { FilePauses } from ${JSON.stringify(MODULE)}
const p = new FilePauses({
  file: ${JSON.stringify(file)}, recheckMs: 200, now: Date.now, log: () => {},
  schedule: (ms, fn) => { const h = setTimeout(fn, ms); return () => clearTimeout(h) },
})
await p.start()
await p.pause("ses_child")
console.log("ready " + process.pid)
${then}
`
}

function tempFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ar-lease-"))
  dirs.push(dir)
  return path.join(dir, "opencode", "auto-resume.paused")
}

describe("the process lease at exit", () => {
  test("a normal exit removes this process's lease; the pause stays for the next start to judge", () => {
    const file = tempFile()
    const r = spawnSync(BUN, ["-e", script(file, "process.exit(0)")], { encoding: "utf8", timeout: 30_000 })
    expect(r.stdout).toContain("ready")
    const state = new PauseMarkerFile(file).read().state
    expect(state.sessions).toEqual(["ses_child"])
    expect(state.leases ?? []).toEqual([])
  }, 30_000)

  test("negative control: a process killed with SIGKILL leaves its lease, which then only lapses", async () => {
    const file = tempFile()
    const child = spawn(BUN, ["-e", script(file, "setInterval(() => {}, 1000)")], { stdio: ["ignore", "pipe", "inherit"] })
    await new Promise<void>((resolve) => child.stdout!.on("data", (d) => String(d).includes("ready") && resolve()))
    child.kill("SIGKILL")
    await new Promise((resolve) => child.once("exit", resolve))
    const state = new PauseMarkerFile(file).read().state
    expect(state.sessions).toEqual(["ses_child"])
    expect(state.leases?.map((l) => l.pid)).toEqual([child.pid])
  }, 30_000)
})
