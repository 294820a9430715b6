/**
 * `bun run docs`: writes the options reference table into docs/options.md, between
 *
 *   <!-- options:start -->
 *   <!-- options:end -->
 *
 * The rows come from OPTION_DOCS (src/options/docs.ts), which is derived from the zod schema,
 * so the table cannot claim an option, type or default the code does not have.
 * test/unit/docs/options-table.test.ts fails when docs/options.md and the schema have drifted
 * apart. (The table lived in README.md until the README was cut down to a two-minute read.)
 *
 * When the markers are missing they are added at the end of the page's "## Every option"
 * section; nothing else on the page is touched.
 */
import fs from "node:fs"
import path from "node:path"
import { OPTION_DOCS, type OptionDoc } from "../src/options/index.ts"

export const START_MARKER = "<!-- options:start -->"
export const END_MARKER = "<!-- options:end -->"
export const OPTIONS_DOC_PATH = path.resolve(import.meta.dir, "..", "docs", "options.md")
/** The section the table belongs to when its markers are missing. */
export const OPTIONS_SECTION = "## Every option"
const DOC_NAME = "docs/options.md"

/** A table cell: one line, pipes escaped (GitHub needs `\|` even inside code spans). */
function cell(text: string): string {
  return text.replace(/\r?\n/g, " ").replace(/\|/g, "\\|").trim()
}

function code(text: string): string {
  return `\`${text}\``
}

function defaultCell(doc: Readonly<OptionDoc>): string {
  // A default shown as its JSON value is code; a descriptive one ("built-in prompt") is prose.
  const raw = doc.default === undefined ? undefined : JSON.stringify(doc.default)
  return doc.defaultText === raw ? code(doc.defaultText) : doc.defaultText
}

function descriptionCell(doc: Readonly<OptionDoc>): string {
  const extra: string[] = []
  if (doc.env) extra.push(`Environment: ${code(doc.env)}.`)
  if (doc.pluginWide) extra.push("Plugin-wide: not overridable per profile or provider.")
  return [doc.description, ...extra].join(" ")
}

/** The generated block, markers excluded. */
export function renderOptionsTable(docs: readonly Readonly<OptionDoc>[] = OPTION_DOCS): string {
  const lines = [
    "<!-- Generated from src/options/schema.ts by `bun run docs`; edit the schema, not this table. -->",
    "",
    "| option | type | default | description | v1 / v2 |",
    "| --- | --- | --- | --- | --- |",
  ]
  for (const doc of docs) {
    const row = [code(doc.name), code(doc.type), defaultCell(doc), descriptionCell(doc), doc.hostNote ?? "same on both"]
    lines.push(`| ${row.map(cell).join(" | ")} |`)
  }
  return lines.join("\n")
}

/** The text between the markers, or undefined when they are missing or out of order. */
export function extractOptionsTable(page: string): string | undefined {
  const start = page.indexOf(START_MARKER)
  const end = page.indexOf(END_MARKER)
  if (start < 0 || end < 0 || end < start) return undefined
  return page.slice(start + START_MARKER.length, end).replace(/^\r?\n/, "").replace(/\r?\n$/, "")
}

function block(table: string): string {
  return `${START_MARKER}\n${table}\n${END_MARKER}`
}

/** The page's text with the generated table in place (markers added when missing). */
export function updateOptionsDoc(page: string, table: string = renderOptionsTable()): string {
  const start = page.indexOf(START_MARKER)
  const end = page.indexOf(END_MARKER)
  if (start >= 0 && end > start) {
    return page.slice(0, start) + block(table) + page.slice(end + END_MARKER.length)
  }
  if (start >= 0 || end >= 0) throw new Error(`${DOC_NAME} has only one of ${START_MARKER} / ${END_MARKER}, or they are out of order`)

  // The section runs from its heading to the next heading of level 1 or 2 outside a code fence.
  const lines = page.split("\n")
  const headingLine = lines.findIndex((line) => line.replace(/[ \t]*\r?$/, "") === OPTIONS_SECTION)
  if (headingLine < 0) throw new Error(`${DOC_NAME} has no "${OPTIONS_SECTION}" section to put the options table in`)
  let fenced = false
  let endLine = lines.length
  for (let i = headingLine + 1; i < lines.length; i++) {
    const line = lines[i]!
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
    else if (!fenced && /^#{1,2} /.test(line)) {
      endLine = i
      break
    }
  }
  const body = lines.slice(0, endLine).join("\n").replace(/\s+$/, "")
  const rest = lines.slice(endLine).join("\n")
  return `${body}\n\n${block(table)}\n${rest ? `\n${rest}` : ""}`
}

if (import.meta.main) {
  try {
    const before = fs.readFileSync(OPTIONS_DOC_PATH, "utf8")
    const after = updateOptionsDoc(before)
    if (after === before) {
      console.error(`${DOC_NAME} options table is up to date`)
    } else {
      fs.writeFileSync(OPTIONS_DOC_PATH, after)
      console.error(`${DOC_NAME} options table written (${OPTION_DOCS.length} options)`)
    }
  } catch (error) {
    console.error(`docs: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  }
}
