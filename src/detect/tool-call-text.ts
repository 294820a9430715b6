/**
 * Tool calls written out as text instead of being made: models (GLM, Qwen, DeepSeek and friends)
 * sometimes print the call in their native markup and stop with finish `stop`, so nothing ran and
 * the session just ends. Recognised outside fenced and inline code: XML call tags (`<function=…>`,
 * `<tool_call>`, `<invoke …>`, `<arg_key>`), bare tags named after a known tool (`<bash>`, Cline's
 * `<write_to_file>`), a tag or JSON call object cut off at the very end, JSON calls, leaked
 * special tokens (`<|tool_call…`, `[TOOL_CALLS]`, gpt-oss harmony), Llama pythonic calls of a known
 * tool, ReAct `Action:`/`Action Input:` lines, and a `tool_code`/`tool_call` fence (Gemma: the one
 * form read inside code, because the fence itself is the call). The same scan reads the reasoning
 * of a turn that made no call (toolCallInReasoning).
 * Tags are found by a hand-written scanner (one pass, a bounded look-ahead per `<`); the few
 * regexes start with a literal and separate their quantifiers by literals.
 */
import { MAX_SCANNED_TEXT, type TranscriptMessage } from "../core/transcript.ts"
import { FENCE_CONTEXT_CHARS, capTail, messageTail, proseTail } from "./text.ts"

export type ToolCallForm = "xml-tag" | "tool-tag" | "truncated-tag" | "json" | "truncated-json" | "marker" | "pythonic" | "react" | "tool-fence"

export type ToolCallHit = { form: ToolCallForm; detail: string }

/** A hit and where it starts in the prose, for the checks that tell a call from prose about one. */
type Located = ToolCallHit & { at: number }

/** Markup tags that only ever appear in tool-call syntax. */
const CALL_TAGS: ReadonlySet<string> = new Set("function function_calls tool_call tool_calls tool_use tool_name invoke parameter parameters arg_key arg_value".split(" "))

/**
 * Tool names whose bare tag (`<bash>`) is read as a call: OpenCode's built-ins, the names other
 * agent templates use, then Cline / Roo Code's tool tags. Generic words (`search`, `run`) are
 * left out on purpose: as tags they turn up in ordinary prose about markup.
 */
export const DEFAULT_TOOL_NAMES: readonly string[] = Object.freeze(
  (
    "bash shell edit multiedit write read grep glob list patch apply_patch todowrite todoread webfetch websearch task " +
    "str_replace str_replace_editor read_file write_file create_file execute_command " +
    "write_to_file replace_in_file apply_diff insert_content search_and_replace list_files search_files " +
    "list_code_definition_names codebase_search use_mcp_tool access_mcp_resource attempt_completion " +
    "run_terminal_cmd edit_file list_dir grep_search file_search delete_file multi_edit ls"
  ).split(" "),
)

/**
 * Leaked special tokens, as read after markerSpelling; gpt-oss harmony addresses a call
 * "to=functions.<name>" and ends it with <|call|>.
 */
const MARKERS: readonly string[] = ["<|tool_call", "<|tool_calls", "[tool_calls]", "<|python_tag|>", "to=functions.", "<|call|>", "<|constrain|>"]

/** A Llama 3.x pythonic call opening a line: `[name(` then `)` or `arg=`. */
const PYTHONIC = /^[ \t]*\[([A-Za-z_][\w.]{0,60})\((?:\)|[A-Za-z_]\w{0,60}[ \t]?=)/gm

/** A call written like a function call at the start of a line: `edit(filePath="a.ts", …)`, `bash({"command": …})`. */
const BARE_CALL = /^[ \t]*([A-Za-z_][\w.]{0,60})\((?:\)|\{|[A-Za-z_]\w{0,60}[ \t]?=)/gm

/** ReAct: `Action: name` with `Action Input:` on the next line. */
const REACT = /^[ \t]*Action:[ \t]*([\w.-]{1,60})[ \t]*\r?\n[ \t]*Action[ \t]Input:/im

/** A fence opened with the info string Gemma uses for a call. */
const TOOL_FENCE = /^[ ]{0,3}(?:```|~~~)[ \t]*(tool_code|tool_call)[ \t]*$/m

/** A call object: typed as a call (OpenAI's "function", Anthropic's "tool_use" block), or a tool's name then its arguments. */
const JSON_FORMS: readonly RegExp[] = [
  /\{\s*"type"\s*:\s*"(?:function|tool_use|tool_call)"/i,
  /\{\s*"(?:name|tool|tool_name)"\s*:\s*"[^"\\\n]{1,100}"\s*,\s*"(?:arguments|parameters|input|args|tool_input|tool_args|params)"\s*:/i,
  /"tool_calls"\s*:\s*\[/i,
  /"function"\s*:\s*\{\s*"name"\s*:/i,
]

/** How far past a JSON call's start the schema check looks. */
const MAX_SCHEMA_LOOK = 600

/** A JSON call object cut off at the end, after whitespace was removed from it. */
const TRUNCATED_JSON = /^\{"(?:type|name|tool|tool_name|function)"(?::(?:"[^",]*(?:",?(?:"[^"]*"?:?)?)?)?)?$/i

/** Longest tag name the scanner reads, and how far it looks for the `>` closing a tag. */
const MAX_TAG_NAME = 40
const MAX_TAG_SPAN = 300
/** A cut-off tag name must have at least this many letters to count (`<fun`, `<par`). */
const MIN_TRUNCATED_NAME = 3
/** How close to the end a cut-off JSON object must start. */
const TRUNCATED_JSON_WINDOW = 300

const knownSets = new WeakMap<readonly string[], ReadonlySet<string>>()
const DEFAULT_SET: ReadonlySet<string> = new Set(DEFAULT_TOOL_NAMES)

/** The built-in tool names plus `extra` (e.g. the host's registry), lower-cased. Cached per list. */
export function toolNameSet(extra?: readonly string[]): ReadonlySet<string> {
  if (!extra || extra.length === 0) return DEFAULT_SET
  let set = knownSets.get(extra)
  if (!set) {
    const names = extra.filter((name) => typeof name === "string" && name.trim() !== "").map((name) => name.trim().toLowerCase())
    knownSets.set(extra, (set = new Set([...DEFAULT_TOOL_NAMES, ...names])))
  }
  return set
}

/** a-z A-Z 0-9 _ - . and : (namespaces) */
function isNameChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95 || code === 45 || code === 46 || code === 58
}

function isLetter(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13
}

/** From just after a tool tag's name: does a `>` close it before another `<` starts? */
function tagCloses(text: string, from: number): "closed" | "open-at-end" | "no" {
  const limit = Math.min(text.length, from + MAX_TAG_SPAN)
  for (let k = from; k < limit; k++) {
    const code = text.charCodeAt(k)
    if (code === 62) return "closed" // >
    if (code === 60) return "no" // <
  }
  return limit === text.length ? "open-at-end" : "no"
}

function scanTags(text: string, known: ReadonlySet<string>, accept: (hit: Located) => boolean): ToolCallHit | undefined {
  const n = text.length
  const take = (hit: Located): ToolCallHit | undefined => (accept(hit) ? { form: hit.form, detail: hit.detail } : undefined)
  for (let i = text.indexOf("<"); i >= 0; i = text.indexOf("<", i + 1)) {
    let j = i + 1
    const closing = text.charCodeAt(j) === 47 // /
    if (closing) j++
    if (!isLetter(text.charCodeAt(j))) continue
    const nameStart = j
    while (j < n && j - nameStart < MAX_TAG_NAME && isNameChar(text.charCodeAt(j))) j++
    const raw = text.slice(nameStart, j).toLowerCase()
    const colon = raw.lastIndexOf(":")
    const name = colon >= 0 ? raw.slice(colon + 1) : raw
    const atEnd = j === n
    const next = atEnd ? -1 : text.charCodeAt(j)

    let hit: Located | undefined
    if (CALL_TAGS.has(name)) {
      if (atEnd) hit = { form: "truncated-tag", detail: `<${raw}`, at: i }
      else if (next === 62 || (!closing && (next === 61 || next === 47 || isSpace(next)))) hit = { form: "xml-tag", detail: `<${closing ? "/" : ""}${raw}`, at: i }
    } else if (known.has(name)) {
      if (atEnd) hit = { form: "truncated-tag", detail: `<${raw}`, at: i }
      else if (next === 62) hit = { form: "tool-tag", detail: `<${closing ? "/" : ""}${raw}>`, at: i }
      else if (!closing && (isSpace(next) || next === 47)) {
        const closes = tagCloses(text, j)
        if (closes === "closed") hit = { form: "tool-tag", detail: `<${raw} …>`, at: i }
        else if (closes === "open-at-end") hit = { form: "truncated-tag", detail: `<${raw} …`, at: i }
      }
    } else if (atEnd && !closing && name.length >= MIN_TRUNCATED_NAME && [...CALL_TAGS].some((tag) => tag.startsWith(name))) {
      hit = { form: "truncated-tag", detail: `<${raw}`, at: i }
    }
    const taken = hit && take(hit)
    if (taken) return taken
  }
  return undefined
}

/** Keys of a JSON Schema: an object that declares a tool's parameters describes the tool, it does not call it. */
const SCHEMA_KEYS = /"(?:properties|\$schema|required)"\s*:|"type"\s*:\s*"object"/

function scanJson(text: string, accept: (hit: Located) => boolean): ToolCallHit | undefined {
  for (const form of JSON_FORMS) {
    const m = form.exec(text)
    if (!m) continue
    if (SCHEMA_KEYS.test(text.slice(m.index, m.index + MAX_SCHEMA_LOOK))) continue
    const hit: Located = { form: "json", detail: m[0].slice(0, 60), at: m.index }
    if (accept(hit)) return { form: hit.form, detail: hit.detail }
  }
  const open = text.lastIndexOf("{")
  if (open >= 0 && text.length - open <= TRUNCATED_JSON_WINDOW) {
    const rest = text.slice(open)
    if (rest.indexOf("}") < 0) {
      const compact = rest.replace(/\s+/g, "")
      if (TRUNCATED_JSON.test(compact)) return { form: "truncated-json", detail: rest.slice(0, 60) }
    }
  }
  return undefined
}

function scanPythonic(text: string, known: ReadonlySet<string>): ToolCallHit | undefined {
  if (text.indexOf("[") < 0) return undefined
  for (const m of text.matchAll(PYTHONIC)) {
    const raw = m[1]!.toLowerCase()
    const name = raw.slice(raw.lastIndexOf(".") + 1)
    if (known.has(name)) return { form: "pythonic", detail: `[${m[1]}(` }
  }
  return undefined
}

function scanBareCall(text: string, known: ReadonlySet<string>, accept: (hit: Located) => boolean): ToolCallHit | undefined {
  if (text.indexOf("(") < 0) return undefined
  for (const m of text.matchAll(BARE_CALL)) {
    const raw = m[1]!.toLowerCase()
    if (!known.has(raw.slice(raw.lastIndexOf(".") + 1))) continue
    const hit: Located = { form: "pythonic", detail: `${m[1]}(`, at: m.index! }
    if (accept(hit)) return { form: hit.form, detail: hit.detail }
  }
  return undefined
}

function scanReact(text: string): ToolCallHit | undefined {
  const m = text.indexOf("ction") >= 0 ? REACT.exec(text) : null
  return m ? { form: "react", detail: `Action: ${m[1]}` } : undefined
}

function scanToolFence(window: string): ToolCallHit | undefined {
  if (window.indexOf("tool_") < 0) return undefined
  const m = TOOL_FENCE.exec(window)
  return m ? { form: "tool-fence", detail: `\`\`\`${m[1]}` } : undefined
}

/**
 * DeepSeek's tokens are written with a full-width bar and "▁" for the underscore
 * (`<｜tool▁call▁begin｜>`), and models print them with either bar: one spelling for all.
 */
function markerSpelling(text: string): string {
  const lower = text.toLowerCase()
  return lower.indexOf("\u2581") < 0 && lower.indexOf("\uff5c") < 0 ? lower : lower.replace(/\uff5c/g, "|").replace(/\u2581/g, "_")
}

function scanMarkers(text: string): ToolCallHit | undefined {
  const lower = markerSpelling(text)
  const marker = MARKERS.find((m) => lower.includes(m))
  return marker === undefined ? undefined : { form: "marker", detail: marker }
}

/**
 * Words just before a tag that make it the subject of a sentence, not a call: "like <invoke>",
 * "the <Read> component", "a <read_file> block".
 */
const MENTION_WORDS: ReadonlySet<string> = new Set(
  "like as e.g eg i.e ie the a an such called named using use uses with via emit emits print prints printed write writes wrap wraps format syntax example tag tags element component".split(" "),
)
/** A call is the end of a reply: this many words of prose after it make it prose about a call. */
const MAX_WORDS_AFTER = 5

/**
 * Words of two letters or more after the last `closer` (or after `from`, if that is later),
 * counted up to `most + 1` only: a reply full of tags asks this for every tag, so it must stay
 * short whatever the text's length. `lastCloser` is the text's last closer, found once per scan.
 */
function wordsAfter(prose: string, from: number, lastCloser: number, most: number): number {
  let count = 0
  let run = 0
  for (let k = Math.max(from, lastCloser + 1); k < prose.length; k++) {
    if (LETTER.test(prose[k]!)) {
      run++
      continue
    }
    if (run >= 2 && ++count > most) return count
    run = 0
  }
  return run >= 2 ? count + 1 : count
}

const LETTER = /\p{L}/u

/** The last index of each closer in one prose text, each looked up once however many hits ask. */
function closerFinder(prose: string): (closer: string) => number {
  const found = new Map<string, number>()
  return (closer) => {
    let at = found.get(closer)
    if (at === undefined) found.set(closer, (at = prose.lastIndexOf(closer)))
    return at
  }
}

function lastWordBefore(prose: string, at: number): { word: string; lineStart: boolean; afterColon: boolean } {
  let k = at - 1
  while (k >= 0 && (prose[k] === " " || prose[k] === "\t")) k--
  if (k < 0 || prose[k] === "\n") return { word: "", lineStart: true, afterColon: false }
  const ch = prose[k]!
  if (":：>".includes(ch)) return { word: "", lineStart: false, afterColon: true }
  let start = k
  while (start > 0 && /[\p{L}.]/u.test(prose[start - 1]!)) start--
  return { word: prose.slice(start, k + 1).toLowerCase().replace(/\.$/, ""), lineStart: false, afterColon: false }
}

/**
 * Is this hit a call the model printed, or prose about one? A printed call ends the reply (the
 * model stops right after it); prose that explains a tag format, names a JSX component or quotes
 * a call goes on after it, or names it as the object of a sentence. A bare tool tag (`<bash>`)
 * must also open its line or follow a colon, and a JSX attribute (`={`) makes it a component.
 */
function isPrintedCall(prose: string, hit: Located, lastCloser: (closer: string) => number): boolean {
  if (hit.form === "truncated-tag") return true
  const before = lastWordBefore(prose, hit.at)
  if (MENTION_WORDS.has(before.word)) return false
  if (hit.form === "tool-tag") {
    if (!before.lineStart && !before.afterColon) return false
    const close = prose.indexOf(">", hit.at)
    if (close > 0 && prose.slice(hit.at, close).includes("={")) return false
  }
  const closer = hit.form === "json" ? "}" : hit.form === "pythonic" ? ")" : ">"
  return wordsAfter(prose, hit.at, lastCloser(closer), MAX_WORDS_AFTER) <= MAX_WORDS_AFTER
}

/**
 * Finds a tool call written as text in `text` (model prose or reasoning). Looks only at the
 * last MAX_SCANNED_TEXT characters, with fenced and inline code blanked out.
 */
export function findToolCallText(text: string, knownTools?: readonly string[]): ToolCallHit | undefined {
  if (typeof text !== "string" || text.length === 0) return undefined
  // Every form needs a "<", "{", "[", "(" with "=", a fence or "Action" in the window; without one,
  // skip the code stripping.
  const window = capTail(text, MAX_SCANNED_TEXT)
  const fenced = scanToolFence(window)
  if (fenced) return fenced
  if (window.indexOf("<") < 0 && window.indexOf("{") < 0 && window.indexOf("[") < 0 && window.indexOf("ction") < 0 && !(window.indexOf("(") >= 0 && window.indexOf("=") >= 0)) return undefined
  const prose = proseTail(text, MAX_SCANNED_TEXT).trimEnd()
  if (prose.length === 0) return undefined
  const known = toolNameSet(knownTools)
  return scanProse(prose, known) ?? scanFinalFence(window, known)
}

function scanProse(prose: string, known: ReadonlySet<string>): ToolCallHit | undefined {
  const lastCloser = closerFinder(prose)
  const accept = (hit: Located) => isPrintedCall(prose, hit, lastCloser)
  return scanMarkers(prose) ?? scanTags(prose, known, accept) ?? scanJson(prose, accept) ?? scanPythonic(prose, known) ?? scanBareCall(prose, known, accept) ?? scanReact(prose)
}

/** The longest code block at the end of a reply that is read as a possible call. */
const MAX_FINAL_FENCE = 4_000

/**
 * A call printed inside a code block that ends the reply: "I'll run the tests." then a fenced
 * `{"name": "bash", "arguments": …}` or `Action: bash` block and nothing after it. Code
 * elsewhere is an example; the block the reply stops on, when it holds one call, is the call
 * the model meant to make.
 */
function scanFinalFence(window: string, known: ReadonlySet<string>): ToolCallHit | undefined {
  const text = window.trimEnd()
  if (!text.endsWith("```") && !text.endsWith("~~~")) return undefined
  const marker = text.slice(-3)
  const closeLine = text.lastIndexOf("\n") + 1
  if (text.slice(closeLine).trim() !== marker) return undefined
  // The opening fence: the nearest line before the closing one that starts with the marker.
  let open = text.lastIndexOf(`\n${marker}`, closeLine - 2)
  if (open < 0 && text.startsWith(marker)) open = -1
  else if (open < 0) return undefined
  const bodyStart = text.indexOf("\n", open + 1)
  if (bodyStart < 0 || bodyStart >= closeLine) return undefined
  const body = text.slice(bodyStart + 1, closeLine)
  if (body.length > MAX_FINAL_FENCE) return undefined
  const hit = scanProse(body, known)
  return hit && { form: hit.form, detail: `in the closing code block: ${hit.detail}` }
}

/** Reads enough before the scanned tail to know whether the tail starts inside a fence. */
function scanMessage(message: TranscriptMessage | undefined, kind: "text" | "reasoning", knownTools?: readonly string[]): ToolCallHit | undefined {
  return findToolCallText(messageTail(message, kind, MAX_SCANNED_TEXT + FENCE_CONTEXT_CHARS), knownTools)
}

export function toolCallInText(message: TranscriptMessage | undefined, knownTools?: readonly string[]): ToolCallHit | undefined {
  return scanMessage(message, "text", knownTools)
}

/**
 * A tool call left inside the reasoning: the model "decided" to call a tool in its thinking and
 * ended the turn without making the call. A message that did make a tool call is excluded:
 * reasoning routinely drafts the call that the message then makes for real.
 */
export function toolCallInReasoning(message: TranscriptMessage | undefined, knownTools?: readonly string[]): ToolCallHit | undefined {
  if (!message || message.role !== "assistant" || message.parts.some((part) => part.kind === "tool")) return undefined
  return scanMessage(message, "reasoning", knownTools)
}
