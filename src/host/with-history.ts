/**
 * The port the engine gets: the adapter's, with the history store as its journal. A port that
 * brings a journal of its own (a test's) keeps it; the adapter's object is never changed.
 */
import type { HostPort } from "../core/port.ts"
import type { HistoryStore } from "../stores/journal-file.ts"

export function withHistory(port: HostPort, history: HistoryStore | undefined): HostPort {
  if (!history || port.journal) return port
  const journaled: HostPort = Object.create(port) as HostPort
  journaled.journal = (entry) => history.append(entry)
  return journaled
}
