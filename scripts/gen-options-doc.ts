/**
 * `bun run docs`: writes the options reference table into README.md, between
 *
 *   <!-- options:start -->
 *   <!-- options:end -->
 *
 * The rows come from OPTION_DOCS (src/options/docs.ts), which is derived from the zod schema,
 * so the table cannot claim an option, type or default the code does not have.
 * test/unit/docs/options-table.test.ts fails when README.md and the schema have drifted apart.
 *
 * When the markers are missing they are added at the end of the README's "## Options"
 * section; nothing else in the README is touched.
 */
import fs from "node:fs"
import path from "node:path"
import { OPTION_DOCS, type OptionDoc } from "../src/options/index.ts"

export const START_MARKER = "<!-- options:start -->"
export const END_MARKER = "<!-- options:end -->"
export const README_PATH = path.resolve(import.meta.dir, "..", "README.md")

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
export function extractOptionsTable(readme: string): string | undefined {
  const start = readme.indexOf(START_MARKER)
  const end = readme.indexOf(END_MARKER)
  if (start < 0 || end < 0 || end < start) return undefined
  return readme.slice(start + START_MARKER.length, end).replace(/^\r?\n/, "").replace(/\r?\n$/, "")
}

function block(table: string): string {
  return `${START_MARKER}\n${table}\n${END_MARKER}`
}

/** README text with the generated table in place (markers added when missing). */
export function updateReadme(readme: string, table: string = renderOptionsTable()): string {
  const start = readme.indexOf(START_MARKER)
  const end = readme.indexOf(END_MARKER)
  if (start >= 0 && end > start) {
    return readme.slice(0, start) + block(table) + readme.slice(end + END_MARKER.length)
  }
  if (start >= 0 || end >= 0) throw new Error(`README.md has only one of ${START_MARKER} / ${END_MARKER}, or they are out of order`)

  // The section runs from its heading to the next heading of level 1 or 2 outside a code fence.
  const lines = readme.split("\n")
  const headingLine = lines.findIndex((line) => /^## Options[ \t]*\r?$/.test(line))
  if (headingLine < 0) throw new Error('README.md has no "## Options" section to put the options table in')
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
    const before = fs.readFileSync(README_PATH, "utf8")
    const after = updateReadme(before)
    if (after === before) {
      console.error("README.md options table is up to date")
    } else {
      fs.writeFileSync(README_PATH, after)
      console.error(`README.md options table written (${OPTION_DOCS.length} options)`)
    }
  } catch (error) {
    console.error(`docs: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  }
}
