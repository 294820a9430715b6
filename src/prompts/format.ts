/** Small, pure formatters shared by prompts and log lines. */

/** `text` cut to `max` characters, with "…" when something was cut. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}

const MAX_NAME_CHARS = 60

/** A tool name safe to quote: one line, no backticks, bounded. */
export function quoteToolName(name: string): string {
  return clip(name.replace(/[\r\n\t`]+/g, " ").trim(), MAX_NAME_CHARS) || "(unnamed)"
}

/** 186000 -> "3m 6s"; 4000 -> "4s"; 250 -> "250ms"; 3723000 -> "1h 2m 3s". */
export function formatDuration(ms: number): string {
  if (Number.isFinite(ms) && ms > 0 && ms < 1000) return `${Math.round(ms)}ms`
  const total = Math.max(0, Math.round((Number.isFinite(ms) ? ms : 0) / 1000))
  const h = Math.floor(total / 3600)
  const m = Math.floor((total % 3600) / 60)
  const s = total % 60
  const parts: string[] = []
  if (h) parts.push(`${h}h`)
  if (h || m) parts.push(`${m}m`)
  parts.push(`${s}s`)
  return parts.join(" ")
}

/** A local, human timestamp such as "Nov 29, 7:50 PM". Never throws. */
export function formatLocalTime(epochMs: number): string {
  try {
    return new Date(epochMs).toLocaleString("en-US", {
      month: "short",
      day: "numeric",
      hour: "numeric",
      minute: "2-digit",
    })
  } catch {
    return new Date(epochMs).toISOString()
  }
}
