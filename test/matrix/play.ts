/**
 * Plays one row's timeline (or its control) on one host, from a fresh sandbox: fake timers,
 * a temporary XDG_CONFIG_HOME / XDG_STATE_HOME, a location no other test uses. Everything is
 * restored before it returns, whatever happened.
 */
import { Sandbox, type HostFactory, type HostName } from "./host-common.ts"
import { timeline, type Act, type Expect } from "./steps.ts"
import type { Row } from "./table.ts"
import { startV1Host } from "./v1-host.ts"
import { startV2Host } from "./v2-host.ts"

export const HOSTS: readonly HostName[] = ["v1", "v2"]
const FACTORIES: Record<HostName, HostFactory> = { v1: startV1Host, v2: startV2Host }

export type Played = { acts: Act[]; logs: string[]; startupLine?: string }

export async function play(host: HostName, row: Pick<Row, "steps" | "options">, control: boolean): Promise<Played> {
  // MATRIX_DEBUG=1 adds the plugin's debug lines to the log shown with a failure.
  const debug = process.env.MATRIX_DEBUG === "1"
  const sandbox = new Sandbox()
  let driver: Awaited<ReturnType<HostFactory>> | undefined
  try {
    driver = await FACTORIES[host](debug ? { ...row.options, debug: true } : (row.options ?? {}))
    for (const step of timeline(row.steps, control)) await driver.play(step)
    const startupLine = await driver.startupLine()
    return { acts: [...driver.acts], logs: driver.logs(), startupLine }
  } finally {
    try {
      await driver?.stop()
    } finally {
      sandbox.close()
    }
  }
}

export function expectedEffect(row: Row, host: HostName, control: boolean): Expect[] {
  if (row.inert?.[host]) return []
  if (control) return row.controlEffectOn?.[host] ?? row.controlEffect ?? []
  return row.effectOn?.[host] ?? row.effect
}

/** One line per act or expectation, for failure messages. */
export function show(items: readonly (Act | Expect)[]): string {
  if (items.length === 0) return "  (nothing)"
  return items.map((i) => `  ${JSON.stringify(i, (_k, v) => (v instanceof RegExp ? String(v) : v)).slice(0, 300)}`).join("\n")
}
