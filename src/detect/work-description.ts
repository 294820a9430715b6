/**
 * Does a reply describe the work it claims to have done? A done claim that already names files,
 * commands, verification output or a results section needs no "tell me what you did" prompt; any
 * one piece of evidence is enough (a filter against bare "Done!", not a grader of reports).
 * Paths are recognised token by token (the window split on spaces and brackets), never by a regex
 * over the line: a path regex of the form `[\w.-]+(?:/[\w.-]+)*` is quadratic on `a/a/a/…`.
 */
import { capTail } from "./text.ts"

const SOURCE_EXTENSIONS: ReadonlySet<string> = new Set(
  (
    "ts tsx mts cts js jsx mjs cjs json jsonc md mdx py pyi go rs java kt kts c h cc cpp hpp cs rb php sh bash zsh " +
    "css scss less html htm vue svelte sql yaml yml toml ini cfg conf env txt lock xml gradle swift m mm dart lua " +
    "ex exs erl hs ml scala clj r jl pl proto graphql tf nix dockerfile makefile csv"
  ).split(" "),
)

/**
 * Each check runs once over the whole window. Line-start checks use the `m` flag and `[ \t]`
 * (never `\s`, which would let them run on across line breaks).
 */
const SECTION_CHECKS: readonly RegExp[] = [
  // A shell fence.
  /^[ \t]{0,3}(?:```|~~~)[ \t]*(?:bash|sh|shell|zsh|console|terminal|powershell|ps1|cmd|fish)\b/im,
  // A shell prompt line.
  /^[ \t]*\$ [a-z]/im,
  // A results heading.
  /^[ \t]{0,3}#{1,6}[ \t][^\n]{0,200}?\b(?:summary|changes?|results?|verification|verified|files?|tests?|outcome|what[ \t]+(?:i[ \t]+did|was[ \t]+done|changed)|implementation|report)\b/im,
  // A results label.
  /^[ \t]*(?:[-*+][ \t]+)?(?:\*\*|__)?(?:summary|changes(?:[ \t]+made)?|results?|verification|outcome|files?[ \t]+(?:changed|modified|touched|updated|created|edited)|tests?(?:[ \t]+run)?|commands?[ \t]+(?:run|used)|what[ \t]+(?:i[ \t]+did|was[ \t]+done|changed))(?:\*\*|__)?[ \t]*:/im,
  // Test, build or type-check output.
  /(?<![\w.])\d+[ \t]+(?:tests?[ \t]+)?(?:passed|passing|failed|failing|pass|fail)\b|\ball[ \t]+(?:\d+[ \t]+)?(?:tests?|checks?)[ \t]+(?:pass|passed|passing|are[ \t]+green|succeeded)\b|\b(?:tests?|checks?|specs?)[ \t]+(?:pass|passed|passing|are[ \t]+green|succeeded)\b|\bexit[ \t]+code[ \t]+\d|\bbuild[ \t]+(?:succeeded|passed|is[ \t]+green|ok)\b|\btype-?checks?[ \t]+(?:is[ \t]+)?(?:clean|passes|passed|ok)\b/i,
  // A command in backticks.
  /`(?:npm|npx|bun|bunx|yarn|pnpm|git|pytest|cargo|go|make|tsc|node|python3?|deno|mvn|gradle|dotnet|rspec|jest|vitest|ls|cat|grep|rg|curl)[ \t][^`\n]{0,200}`/,
]

const ABSOLUTE_SEGMENT = /^[a-z0-9._-]{1,32}$/

/** Longest token the path scanner considers; anything longer is not a path a human writes. */
const MAX_PATH_TOKEN = 260

/** A token the path check reads: a run between spaces, line breaks, quotes, brackets and list punctuation. */
const TOKEN = /[^ \t\n\r`"'()[\]<>,;*]+/g
/** a-z A-Z 0-9 _ - . / ~ @ */
const PATH_CHARS = /^[\w.\/~@-]+$/

/** One token, already split on spaces and brackets: a file path or not. */
function looksLikePath(raw: string): boolean {
  // Drop sentence punctuation that clings to a path ("see src/a.ts.", "src/a.ts:12").
  let token = raw
  while (token.length > 0 && ".:!?".includes(token[token.length - 1]!)) token = token.slice(0, -1)
  const colon = token.indexOf(":")
  if (colon > 0 && /^\d/.test(token.slice(colon + 1))) token = token.slice(0, colon)
  if (token.length < 3 || token.length > MAX_PATH_TOKEN || !PATH_CHARS.test(token)) return false
  if (token.includes("//")) return false // URLs, comments
  const dot = token.lastIndexOf(".")
  const slash = token.lastIndexOf("/")
  if (dot > 0 && dot > slash && dot < token.length - 1) {
    const ext = token.slice(dot + 1).toLowerCase()
    if (SOURCE_EXTENSIONS.has(ext)) return true
  }
  if (token.startsWith("./") || token.startsWith("../") || token.startsWith("~/")) {
    // A relative or home path needs a word in it ("../.." is not a description).
    return slash > 0 && /[a-z]/i.test(token)
  }
  if (token.startsWith("/")) {
    // An absolute path without a known extension is weak evidence and looks like a line of
    // base64 often enough; accept only plain lower-case segments ("/etc/nginx/sites").
    const segments = token.slice(1).split("/")
    return segments.length >= 2 && segments.every((segment) => ABSOLUTE_SEGMENT.test(segment))
  }
  return false
}

/** One pass over the window's tokens, stopping at the first path. */
function containsPath(text: string): boolean {
  for (const [token] of text.matchAll(TOKEN)) if (token.length <= MAX_PATH_TOKEN + 4 && looksLikePath(token)) return true
  return false
}

export function hasWorkDescription(text: string): boolean {
  if (typeof text !== "string" || text.length === 0) return false
  const tail = capTail(text)
  return SECTION_CHECKS.some((check) => check.test(tail)) || containsPath(tail)
}
