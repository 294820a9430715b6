/** Where the history of interventions lives: beside the pause marker, in the plugin's state directory. */
import path from "node:path"
import { pauseFilePath } from "../stores/pause-marker.ts"

export const JOURNAL_FILE_NAME = "auto-resume.history.jsonl"

/** The rotated file keeps the previous megabyte: `<file>.1`. */
export const previousJournalPath = (file: string): string => `${file}.1`

export function journalFilePath(env: Record<string, string | undefined> = process.env): string {
  return path.join(path.dirname(pauseFilePath(env)), JOURNAL_FILE_NAME)
}
