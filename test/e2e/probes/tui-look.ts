/**
 * Look at a recovery as the user sees it: a real OpenCode 1.18.33 server with this plugin, a
 * fake model on 127.0.0.1, and OpenCode's own terminal UI attached to the session under tmux.
 * Prints the screen (tmux capture-pane) after the recovery, so the message the plugin left can
 * be read in the real UI. Not a test: a probe run by hand.
 *
 *   bun test/e2e/probes/tui-look.ts stall|cut-off|tool-text|gave-up|waits [--type "/auto-resume history"] [--keep]
 *
 * --type: typed into the UI after the recovery (then Enter), to see a command's answer.
 */
import { spawnSync } from "node:child_process"
import path from "node:path"
import { hangAfter, startFakeProvider, text, toolCall, type FakeProvider } from "../harness/fake-provider.ts"
import { createSession, promptAsync, resolveOpencodeBinary, startOpencode } from "../harness/opencode-host.ts"
import { PLUGIN_URL, eventually } from "../support.ts"

const OPTIONS = { chunkTimeoutMs: 3000, gracePeriodMs: 500, baseBackoffMs: 200, maxBackoffMs: 1000, checkIntervalMs: 500 }

/** `options`: the plugin's, over OPTIONS; `recovered`: the text on screen that shows the look happened. */
type Look = { prompt: string; script(p: FakeProvider): void; recovered: string; options?: Record<string, unknown> }
const LOOKS: Record<string, Look> = {
  stall: {
    prompt: "check the build",
    script: (p) => {
      p.enqueue(hangAfter("Let me check the build log"))
      p.setFallback(text("Picked up where I stopped: the build log shows no errors."))
    },
    recovered: "Picked up",
  },
  "cut-off": {
    prompt: "write the summary",
    script: (p) => {
      p.enqueue(text("Here is the summary of the three modules. The first one parses the", { finish: "length" }))
      p.setFallback(text("...config file and the second one writes the report. Done."))
    },
    recovered: "writes the report",
  },
  "tool-text": {
    prompt: "list the files",
    script: (p) => {
      p.enqueue(text('I will list them.\n<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>'))
      p.setFallback(text("Listed them properly this time."))
    },
    recovered: "properly",
  },
  // Every request hangs: one abort and continue, then the lifetime cap is spent and the plugin gives up (its toast).
  "gave-up": {
    prompt: "check the build",
    script: (p) => p.setFallback(hangAfter("Let me check the build log")),
    recovered: "gave up",
    options: { lifetimeMaxContinues: 1 },
  },
  // The model asks the user a question nobody answers: the stall recovery is held, and the user told (its toast).
  waits: {
    prompt: "set up the database",
    script: (p) => {
      p.enqueue(toolCall("question", { questions: [{ header: "Database", question: "Which database should I use?", options: [{ label: "Postgres", description: "a server" }, { label: "SQLite", description: "a file" }] }] }))
      p.setFallback(text("Going with your choice."))
    },
    recovered: "waits for",
  },
}

const tmux = (...args: string[]) => spawnSync("tmux", args, { encoding: "utf8", timeout: 10_000 })

async function main(): Promise<number> {
  const name = process.argv[2] ?? "stall"
  const look = LOOKS[name]
  if (!look) {
    console.error(`unknown look "${name}"; one of: ${Object.keys(LOOKS).join(", ")}`)
    return 2
  }
  const provider = await startFakeProvider()
  look.script(provider)
  const host = await startOpencode({ providerUrl: provider.url, plugins: [[PLUGIN_URL, { ...OPTIONS, ...look.options }]] })
  const tmuxName = `look-${process.pid}`
  try {
    const sessionID = await createSession(host, { title: `look: ${name}` })
    const d = (sub: string) => path.join(host.root, sub)
    const env = [`HOME=${d("home")}`, `XDG_CONFIG_HOME=${d("config")}`, `XDG_DATA_HOME=${d("data")}`, `XDG_CACHE_HOME=${d("cache")}`, `XDG_STATE_HOME=${d("state")}`, "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "TERM=xterm-256color"]
    const cmd = `env ${env.join(" ")} ${resolveOpencodeBinary()} attach ${host.url} --session ${sessionID} --dir ${host.directory}`
    tmux("new-session", "-d", "-s", tmuxName, "-x", "110", "-y", "40", cmd)
    await Bun.sleep(4000) // let the UI draw before the turn starts
    await promptAsync(host, sessionID, look.prompt)
    const seen = await eventually(() => tmux("capture-pane", "-p", "-t", tmuxName).stdout.includes(look.recovered), 45_000, 500)
    await Bun.sleep(1500)
    const typed = process.argv[process.argv.indexOf("--type") + 1]
    if (process.argv.includes("--type") && typed) {
      tmux("send-keys", "-t", tmuxName, "-l", typed)
      await Bun.sleep(500)
      tmux("send-keys", "-t", tmuxName, "Enter")
      await Bun.sleep(4000)
    }
    console.log(tmux("capture-pane", "-p", "-t", tmuxName).stdout)
    console.log(seen ? `(recovered: "${look.recovered}" is on screen)` : "(NOT recovered on screen)")
    return seen ? 0 : 1
  } finally {
    if (!process.argv.includes("--keep")) tmux("kill-session", "-t", tmuxName)
    await host.stop()
    await provider.stop()
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err)
    process.exit(1)
  },
)
