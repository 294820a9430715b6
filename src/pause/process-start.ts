/**
 * Who a process is, across a pid that may be reused: its pid plus when it started, read from
 * /proc (boot time plus the start tick count), so two readings of the same process agree to the
 * millisecond and a process started later under the same pid (or after a reboot) does not.
 * Where /proc is missing, the pid alone has to do.
 */
import fs from "node:fs"
import os from "node:os"
import type { WaitOwner } from "../core/carried-waits.ts"
import { processAlive } from "./marker-lock.ts"

/** Clock ticks per second of /proc's start times; 100 on every Linux this runs on. */
const CLOCK_TICKS = 100

let bootSeconds: number | null | undefined

function bootTime(): number | undefined {
  if (bootSeconds === undefined) {
    try {
      const m = /^btime (\d+)$/m.exec(fs.readFileSync("/proc/stat", "utf8").slice(0, 65536))
      bootSeconds = m ? Number(m[1]) : null
    } catch {
      bootSeconds = null
    }
  }
  return bootSeconds ?? undefined
}

/** When process `pid` started (epoch ms), or undefined when /proc cannot tell. */
export function processStartedAt(pid: number): number | undefined {
  const boot = bootTime()
  if (boot === undefined) return undefined
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8").slice(0, 4096)
    // pid (comm) state ppid ...: comm may hold spaces or parens, so count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const ticks = Number(fields[19])
    return Number.isFinite(ticks) ? boot * 1000 + Math.round((ticks * 1000) / CLOCK_TICKS) : undefined
  } catch {
    return undefined
  }
}

let self: WaitOwner | undefined

/** This process as a wait's owner. */
export function selfOwner(): WaitOwner {
  if (!self) {
    const startedAt = processStartedAt(process.pid) ?? Math.round(Date.now() - process.uptime() * 1000)
    self = { pid: process.pid, startedAt }
    try {
      self.host = os.hostname()
    } catch {
      // Without a host name the pid and start stand alone.
    }
  }
  return self
}

/**
 * Whether the owner still runs. Another host's process cannot be checked from here and counts
 * as alive (its waits are not ours to take); on this host the pid must be alive and, where /proc
 * says, have started when the owner did.
 */
export function ownerAlive(owner: WaitOwner): boolean {
  const me = selfOwner()
  if ((owner.host ?? "") !== (me.host ?? "")) return true
  if (!processAlive(owner.pid)) return false
  const started = processStartedAt(owner.pid)
  return started === undefined || started === owner.startedAt
}
