/** How a pause's holder is put into words (both status replies, the dropped-pause log line). Pure. */
import type { DroppedPause, HoldView, Lease } from "../core/pause-leases.ts"
import { formatDuration, formatLocalTime } from "./format.ts"

const since = (at: number, now: number) => `since ${formatLocalTime(at)} (${formatDuration(Math.max(0, now - at))} ago)`

function processName(lease: Lease | undefined): string {
  if (!lease) return "an OpenCode process"
  const where = [lease.pid !== undefined ? `pid ${lease.pid}` : undefined, lease.host ? `on ${lease.host}` : undefined].filter(Boolean).join(" ")
  return where ? `the OpenCode process ${where}` : "an OpenCode process"
}

export function holdText(view: HoldView, now: number): string {
  switch (view.kind) {
    case "self":
      return `held by this OpenCode process${view.lease?.pid !== undefined ? ` (pid ${view.lease.pid})` : ""} ${since(view.at, now)}; a restart of it lifts the pause`
    case "other":
      return `held by ${processName(view.lease)} ${since(view.at, now)}; a restart of that process lifts the pause`
    case "gone":
      return `held by ${processName(view.lease)} that is no longer running (its lease lapsed), ${since(view.at, now)}; dropped at the next check`
    case "unclaimed":
      return `set ${since(view.at, now)}, not claimed by any running OpenCode yet; dropped at ${formatLocalTime(view.expiresAt)} unless one claims it`
  }
}

export function droppedText(d: DroppedPause, leases: readonly Lease[]): string {
  const what = d.session === undefined ? "the pause of all sessions" : `the pause of session ${d.session}`
  if (d.why === "unclaimed-expired") {
    return `dropped ${what}: it was set at ${formatLocalTime(d.hold.at)} and no running OpenCode claimed it within 24 hours`
  }
  const lease = leases.find((l) => l.id === d.hold.by)
  return `dropped ${what} (set at ${formatLocalTime(d.hold.at)}): ${processName(lease)} that held it is no longer running`
}
