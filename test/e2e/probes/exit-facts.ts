/**
 * How a real OpenCode 1.18.33 process ends, as a plugin sees it (../HOST-NOTES.md, "How the
 * process ends"). Not a test: `node_modules/.bin/bun test/e2e/probes/exit-facts.ts [case...]`.
 * Cases: serve-SIGTERM, serve-SIGINT, serve-SIGHUP (a signal to `opencode serve`),
 * serve-instance-dispose, serve-global-dispose (POST /instance/dispose, /global/dispose),
 * run (an `opencode run` that ends), tui-quit (ctrl+c in the terminal UI, under `script`),
 * tui-SIGTERM, tui-SIGHUP (a signal to the terminal UI process). Each prints what the probe
 * plugin wrote.
 */
import { spawn } from "node:child_process"
import fs from "node:fs"
import os from "node:os"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { startFakeProvider, text } from "../harness/fake-provider.ts"
import { descendantPids, prepareSandbox, resolveOpencodeBinary, startOpencode } from "../harness/opencode-host.ts"

const ALL = ["serve-SIGTERM", "serve-SIGINT", "serve-SIGHUP", "serve-instance-dispose", "serve-global-dispose", "run", "tui-quit", "tui-SIGTERM", "tui-SIGHUP"]
const cases = process.argv.length > 2 ? process.argv.slice(2) : ALL
const plugin = pathToFileURL(path.join(import.meta.dir, "..", "fixtures", "exit-probe-plugin.ts")).href
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const provider = await startFakeProvider()
provider.setFallback(text("hello there."))

async function serve(how: string, out: string): Promise<void> {
  const host = await startOpencode({ providerUrl: provider.url, plugins: [plugin], env: { EXIT_PROBE_FILE: out } })
  await sleep(2000)
  if (how.endsWith("dispose")) {
    const r = await fetch(`${host.url}/${how.split("-")[0]}/dispose?directory=${encodeURIComponent(host.directory)}`, { method: "POST" })
    await sleep(3000)
    console.log(`  POST answered ${r.status}; process still running: ${!host.exited()}`)
  } else {
    const t = Date.now()
    process.kill(host.pid, how as NodeJS.Signals)
    for (let i = 0; i < 100 && !host.exited(); i++) await sleep(50)
    console.log(`  exited: ${host.exited()} after ${Date.now() - t} ms`)
  }
  await host.stop()
}

/** `opencode run hello`, or the terminal UI, in a pseudo-terminal (`script`). */
async function terminal(how: string, out: string): Promise<void> {
  const { dirs, env, root } = prepareSandbox("oc-exit-", { providerUrl: provider.url, plugins: [plugin] })
  const bin = resolveOpencodeBinary()
  const child = spawn("script", ["-qfec", how === "run" ? `${bin} run hello` : bin, "/dev/null"], {
    cwd: dirs.project,
    env: { ...env, EXIT_PROBE_FILE: out, TERM: "xterm-256color" },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  })
  child.stdout!.resume()
  child.stderr!.resume()
  let done = false
  child.on("exit", (code, signal) => {
    done = true
    console.log(`  script exited code=${code} signal=${signal}`)
  })
  if (how === "run") for (let i = 0; i < 300 && !done; i++) await sleep(100)
  else {
    await sleep(15_000)
    const tree = descendantPids(child.pid!).filter((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/cmdline`, "utf8").includes("opencode")
      } catch {
        return false
      }
    })
    console.log(`  opencode processes: ${tree.join(", ")}`)
    if (how === "tui-quit") {
      // ctrl+c; a second one if the first came before the UI took input.
      child.stdin!.write("\x03")
      await sleep(3000)
      if (!done) child.stdin!.write("\x03")
    } else process.kill(tree[0]!, how.slice(4) as NodeJS.Signals)
    await sleep(4000)
    console.log(`  still alive: ${tree.filter((p) => fs.existsSync(`/proc/${p}`)).join(", ") || "none"}`)
  }
  for (const p of [child.pid!, ...descendantPids(child.pid!)]) {
    try {
      process.kill(-p, "SIGKILL")
    } catch {
      try {
        process.kill(p, "SIGKILL")
      } catch {
        // Gone.
      }
    }
  }
  fs.rmSync(root, { recursive: true, force: true })
}

for (const name of cases) {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "oc-exit-out-")), "probe.txt")
  console.log(`${name}:`)
  if (name.startsWith("serve-")) await serve(name.slice(6), out)
  else await terminal(name, out)
  console.log(fs.existsSync(out) ? fs.readFileSync(out, "utf8").replace(/^/gm, "    ").trimEnd() : "    (nothing written)")
}
await provider.stop()
