/**
 * The universal entry. OpenCode 1.x calls `server`, 2.x calls `setup`; the default export
 * serves both and nothing else is exported, because the 1.x loader treats every export as a
 * plugin.
 */
import type { Hooks, PluginInput } from "@opencode-ai/plugin"
import { checkV1Input, isRealV2Context } from "./host/detect.ts"
import { inertLog, startV1 } from "./host/v1/adapter.ts"
import { setupV2 } from "./host/v2/adapter.ts"

const PLUGIN_ID = "opencode-auto-resume"

async function server(input: PluginInput, options?: Record<string, unknown>): Promise<Hooks> {
  try {
    const verdict = checkV1Input(input)
    if (!verdict.ok) {
      inertLog(input)("error", `${PLUGIN_ID} disabled: ${verdict.problem}`)
      return {}
    }
    return startV1(input, options, process.env).hooks
  } catch (error) {
    inertLog(input)("error", `${PLUGIN_ID} disabled: failed to start: ${error instanceof Error ? error.message : String(error)}`)
    return {}
  }
}

function setup(ctx: unknown): (() => void) | undefined {
  // The 1.18 preview loader calls setup() next to server() with a ctx that has no session or
  // event API: answering it would run the plugin twice, so only a real 2.x host gets an adapter.
  if (!isRealV2Context(ctx)) return undefined
  try {
    return setupV2(ctx, { env: process.env })
  } catch {
    // setupV2 reports its own failures to the log file; this is the last net.
    return undefined
  }
}

export default { id: PLUGIN_ID, server, setup }
