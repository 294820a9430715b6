/**
 * What the toggle CLI does with the rate-limit wait file: `status` names a session's wait
 * (carried over from a restart or not), and a pause takes the waits it pauses out of the file,
 * so a restart that lifts the pause does not bring their continue back. The running plugin
 * ends its own copy within a check interval when it sees the pause.
 */
import type { CarriedWait } from "../core/carried-waits.ts"
import { formatLocalTime } from "../prompts/format.ts"
import { RateWaitFile, rateWaitFilePath } from "../stores/wait-file.ts"

export type WaitTarget = { all: true } | { all: false; sessionID: string }

const concerns = (target: WaitTarget, wait: CarriedWait) => target.all || wait.sessionID === target.sessionID

/** Lines for `status`; a file that cannot be read says so once. */
export function waitStatusLines(env: Record<string, string | undefined>, target: WaitTarget, now: number): string[] {
  const read = new RateWaitFile(rateWaitFilePath(env)).read()
  const lines = read.problem ? [`rate-limit wait file ignored: ${read.problem}`] : []
  for (const wait of read.waits.filter((w) => concerns(target, w)).slice(0, 20)) {
    const who = target.all ? `${wait.sessionID}: ` : ""
    const when = wait.until > now ? `until ${formatLocalTime(wait.until)}` : `over since ${formatLocalTime(wait.until)} (its continue is due once the session is idle)`
    lines.push(`${who}waiting for the rate limit${wait.carriedOver ? " (carried over from a restart)" : ""} ${when}, hit ${wait.rung}, held by pid ${wait.owner.pid}`)
  }
  return lines
}

/** A pause ends the waits it covers: out of the file. Returns how many were removed. Throws StateFileError. */
export async function endPausedWaits(env: Record<string, string | undefined>, target: WaitTarget, now: number): Promise<number> {
  let removed = 0
  await new RateWaitFile(rateWaitFilePath(env), { now: () => now }).update((waits) => {
    const kept = waits.filter((w) => !concerns(target, w))
    removed = waits.length - kept.length
    return kept
  })
  return removed
}
