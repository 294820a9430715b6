/**
 * The labelled corpus of finished turns: our own model-style outputs, each labelled with
 * the one thing the judge should make of it. Written for this project; see README.md.
 */

/** What the judge should conclude. "none" is an ordinary ending that calls for nothing. */
export type Family =
  | "tool-call"
  | "dead-stream"
  | "done"
  | "celebration"
  | "stop"
  | "ready"
  | "action-intent"
  | "hand-off"
  | "none"

export const LANGS = ["en", "zh", "es", "pt", "de", "fr", "ja", "ru"] as const
/** "any": the text carries no language (markup, blanks). */
export type Lang = (typeof LANGS)[number] | "any"

export type Sample = {
  family: Family
  lang: Lang
  /** The visible text of the newest assistant message. */
  text: string
  /** Reasoning of the same message, when the sample has some. */
  reasoning?: string
  /** Output tokens reported for the message (default 500). */
  tokens?: number
}

/** One family, one language, many texts. */
export function group(family: Family, lang: Lang, texts: readonly string[]): Sample[] {
  return texts.map((text) => ({ family, lang, text }))
}
