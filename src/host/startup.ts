/** The one startup log line: what runs, where, with which non-default options. */
import pkg from "../../package.json" with { type: "json" }
import type { ResolvedOptions } from "../options/index.ts"
import { INERT_OPTIONS } from "../options/inert.ts"

export const PACKAGE_VERSION: string = pkg.version

function show(value: unknown): string {
  try {
    const text = JSON.stringify(value)
    return text.length > 80 ? `${text.slice(0, 77)}...` : text
  } catch {
    return "?"
  }
}

export function startupLine(host: "v1" | "v2", resolved: ResolvedOptions): string {
  const changed = Object.entries(resolved.differences)
    .map(([key, value]) => `${key}=${show(value)}`)
    .join(" ")
  return [
    `opencode-auto-resume ${PACKAGE_VERSION} host=${host}`,
    `options: ${changed || "defaults"}`,
    `accepted-but-inert=${INERT_OPTIONS[host].join(",")}`,
  ].join("; ")
}
