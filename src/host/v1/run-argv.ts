/**
 * Whether the plugin runs inside a headless `opencode run`, read from the process's argv.
 * Measured on 1.18.33: inside the plugin `process.argv` is
 * `["bun", "/$bunfs/root/src/index.js", "run", "--print-logs", "--model", "fake/fake-model", "hello"]`
 * under `opencode run` and `[..., "serve", ...]` under `opencode serve`; the TUI has no
 * subcommand. `opencode run --attach <url>` runs the session in the server, whose argv says `serve`.
 */
const MAX_ARGS = 256

/** Options that take a value and may come before the subcommand (`opencode --log-level DEBUG run`). */
const VALUE_OPTIONS_BEFORE_COMMAND = new Set(["--log-level"])

export type RunArgv = {
  /** The subcommand is `run`. */
  headless: boolean
  /** The provider of `--model/-m provider/model`, when the run names one. */
  modelProvider?: string
}

export function readRunArgv(argv: readonly unknown[] | undefined): RunArgv {
  const args = Array.isArray(argv) ? argv.slice(2, 2 + MAX_ARGS) : []
  let command: string | undefined
  let model: string | undefined
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    if (typeof arg !== "string") continue
    if (arg === "--") break // the rest is message text
    if (arg === "--model" || arg === "-m") {
      const value = args[i + 1]
      if (typeof value === "string") model = value
      i++
      continue
    }
    const inline = /^(?:--model|-m)=(.*)$/.exec(arg)
    if (inline) {
      model = inline[1]
      continue
    }
    if (arg.startsWith("-")) {
      if (command === undefined && VALUE_OPTIONS_BEFORE_COMMAND.has(arg)) i++
      continue
    }
    // The first positional is the subcommand; later ones are its arguments (the message).
    if (command === undefined) command = arg
  }
  if (command !== "run") return { headless: false }
  return { headless: true, modelProvider: providerOf(model) }
}

/** "provider/model" (the model id may hold more slashes) -> "provider"; anything else -> undefined. */
export function providerOf(model: string | undefined): string | undefined {
  if (typeof model !== "string") return undefined
  const slash = model.indexOf("/")
  if (slash <= 0) return undefined
  return model.slice(0, slash).trim() || undefined
}
