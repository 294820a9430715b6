import { describe, expect, test } from "bun:test"
import { MAX_SCANNED_TEXT } from "../../../src/core/transcript.ts"
import { findToolCallText, toolCallInReasoning, toolCallInText, type ToolCallForm } from "../../../src/detect/tool-call-text.ts"
import { FENCE_CONTEXT_CHARS } from "../../../src/detect/text.ts"
import { assistant, said, thought, tool } from "../../fixtures/transcript-builders.ts"

const positives: Array<[string, string, ToolCallForm]> = [
  ["GLM/Qwen function tag", "Let me look.\n<function=bash>\n<parameter=command>ls -la</parameter>\n</function>", "xml-tag"],
  ["function tag with spaces", "<function = read>", "xml-tag"],
  ["plain <function> element", "<function>read</function>", "xml-tag"],
  ["closing function tag alone", "done </function>", "xml-tag"],
  ["tool_call block", 'Sure.\n<tool_call>\n{"name": "read", "arguments": {"path": "a"}}\n</tool_call>', "xml-tag"],
  ["tool_call with attributes", '<tool_call id="1">', "xml-tag"],
  ["invoke with a name", '<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>', "xml-tag"],
  ["parameter alone", 'Then <parameter name="path">src/a.ts</parameter>', "xml-tag"],
  ["GLM arg_key/arg_value", "bash<arg_key>command</arg_key><arg_value>ls</arg_value>", "xml-tag"],
  ["namespaced invoke", '<ns:invoke name="x">', "xml-tag"],
  ["upper-case tag", "<FUNCTION=bash>", "xml-tag"],
  ["bare tool tag", "I'll run it:\n<bash>ls -la</bash>", "tool-tag"],
  ["tool tag with attributes", '<edit path="src/a.ts" old="x" new="y">', "tool-tag"],
  ["self-closing tool tag", '<read path="a.ts"/>', "tool-tag"],
  ["closing tool tag", "ls\n</bash>", "tool-tag"],
  ["tool tag with a newline inside", '<write\n  path="a.ts">', "tool-tag"],
  ["cut off: <func", "Let me check the file.\n<func", "truncated-tag"],
  ["cut off: <tool_ca", "Running it now <tool_ca", "truncated-tag"],
  ["cut off: <par", "ok <par", "truncated-tag"],
  ["cut off: <invoke", "<invoke", "truncated-tag"],
  ["cut off inside attributes", 'Editing:\n<edit path="src/a', "truncated-tag"],
  ["cut off right after a tool name", "Next <bash", "truncated-tag"],
  ["cut off, trailing spaces", "<function   \n  ", "truncated-tag"],
  ["a reply that is only a cut-off tag", "<function", "truncated-tag"],
  ["JSON type function", 'Calling {"type": "function", "function": {"name": "bash"}}', "json"],
  ["JSON type function, no spaces", '{"type":"function"}', "json"],
  ["JSON name + arguments", '{"name": "read", "arguments": {"path": "a.ts"}}', "json"],
  ["JSON name + parameters", '{ "name" : "grep" , "parameters" : {} }', "json"],
  ["JSON tool + input", '{"tool": "bash", "input": {"command": "ls"}}', "json"],
  ["JSON tool_calls array", '"tool_calls": [{"id": "1"}]', "json"],
  ["JSON function object", '"function": {"name": "bash"', "json"],
  ["JSON cut off after the name", 'Let me call it.\n{"name": "bash",', "truncated-json"],
  ["JSON cut off mid-name", '{"name": "ba', "truncated-json"],
  ["JSON cut off after the key", '{"type"', "truncated-json"],
  ["JSON cut off after the colon", '{ "name" :', "truncated-json"],
  ["JSON cut off at the arguments key", '{"name":"bash","arguments":', "json"],
  ["JSON cut off in the arguments key", '{"name":"bash","argu', "truncated-json"],
  ["Mistral marker", '[TOOL_CALLS] [{"name": "x"}]', "marker"],
  ["Mistral marker, nothing after it", "Running it: [TOOL_CALLS]", "marker"],
  ["special-token marker", "<|tool_call_begin|>bash", "marker"],
  ["DeepSeek marker", "<\uff5ctool\u2581call\u2581begin\uff5c>function", "marker"],
  ["DeepSeek marker with ASCII bars", "Running the suite:\n\n<|tool\u2581calls\u2581begin|><|tool\u2581call\u2581begin|>function<|tool\u2581sep|>bash\n```json\n{\"command\": \"pytest -x\"}\n```<|tool\u2581call\u2581end|><|tool\u2581calls\u2581end|>", "marker"],
  ["JSON Anthropic tool_use block", 'Adjusting the limits.\n\n{"type": "tool_use", "name": "edit", "input": {"file_path": "values.yaml"}}', "json"],
  ["JSON tool_name + tool_input", 'Running the tests:\n\n{"tool_name": "bash", "tool_input": {"command": "npx ng test"}}', "json"],
]

const negatives: Array<[string, string]> = [
  ["plain prose", "I updated the parser and the tests pass."],
  ["HTML in prose", "Wrap it in <div class=\"x\"> and use <b>bold</b>."],
  ["angle brackets in math", "if a < b and c > d then x <= y"],
  ["generic tags", "<a href='x'>link</a> <span>y</span> <br/>"],
  ["tool name without a tag", "Use the bash tool to run ls, then edit the file."],
  ["inline code", "The model printed `<function=bash>` instead of calling the tool."],
  ["double-backtick inline code", "Write ``<tool_call>`` in the template."],
  ["fenced block", "Example:\n```xml\n<function=bash>\n<parameter=command>ls</parameter>\n</function>\n```\nThat is the format."],
  ["tilde fence", "~~~\n<tool_call>\n~~~\nok"],
  ["fenced JSON", '```json\n{"name": "read", "arguments": {}}\n```'],
  ["unclosed fence swallows the rest", "Here:\n```\n<function=bash>"],
  ["JSON without arguments", '{"name": "my-package", "version": "1.0.0"}'],
  ["JSON with type other than function", '{"type": "module"}'],
  ["a \u2581 in prose without a token", "The tokenizer marks a leading space with \u2581 and a bar with \uff5c in its vocabulary."],
  ["JSON tool_name without its input", '{"tool_name": "bash", "timeout": 30}'],
  ["cut-off prefix too short", "a <fu"],
  ["cut-off unknown tag", "see <paragraph"],
  ["prefix of a tag not at the end", "<func and more text"],
  ["tool tag whose > never comes", '<edit path="a.ts" ' + "x".repeat(400) + " then more"],
  ["tool tag broken by another tag", '<edit path="a" <b>'],
  ["truncated-looking JSON that closes", 'x {"name": "bash"} done'],
  ["JSON name far from the end", '{"name": "bash",' + " and then a long explanation ".repeat(20)],
  ["empty", ""],
  ["only spaces", "   \n\t "],
]

describe("tool call printed as text", () => {
  test.each(positives)("finds %s", (_name, text, form) => {
    const hit = findToolCallText(text)
    expect(hit?.form).toBe(form)
  })

  test.each(negatives)("ignores %s", (_name, text) => {
    expect(findToolCallText(text)).toBeUndefined()
  })

  test("extra tool names from the host registry count as bare tags", () => {
    expect(findToolCallText("<deploy_site>now</deploy_site>")).toBeUndefined()
    expect(findToolCallText("<deploy_site>now</deploy_site>", ["Deploy_Site"])?.form).toBe("tool-tag")
  })

  test("code after a closed fence is prose again", () => {
    expect(findToolCallText("```\ncode\n```\n<tool_call>")?.form).toBe("xml-tag")
    expect(findToolCallText("````\n```\n<tool_call>\n```\n````\ntext")).toBeUndefined()
  })

  test("a backtick run without a partner stays literal", () => {
    expect(findToolCallText("it costs 5` then <function=bash>")?.form).toBe("xml-tag")
  })

  test("only the capped tail is read", () => {
    const early = "<function=bash>\n" + "plain words here\n".repeat(Math.ceil((MAX_SCANNED_TEXT + 100) / 17))
    expect(findToolCallText(early)).toBeUndefined()
    expect(findToolCallText(early + "<tool_call>")?.form).toBe("xml-tag")
  })

  test("a tail that starts inside a long code block knows it is in code", () => {
    const code = "<function=bash>\n".repeat(Math.ceil((MAX_SCANNED_TEXT * 2) / 16))
    const text = "Here is the parser source:\n```\n" + code + "```\nThat is all."
    expect(findToolCallText(text)).toBeUndefined()
    // Negative control: the same lines outside a fence are printed calls.
    expect(findToolCallText("Here:\n" + code + "That is all.")?.form).toBe("xml-tag")
  })

  test("a fence opened before the fence context window is not seen (documented limit)", () => {
    const filler = "x\n".repeat(Math.ceil((FENCE_CONTEXT_CHARS + MAX_SCANNED_TEXT + 10) / 2))
    const text = "```\n" + filler + "<function=bash>"
    expect(findToolCallText(text)?.form).toBe("xml-tag")
  })
})

describe("prose about calls is not a printed call", () => {
  // Each prose sample has a control: the same markup as a reply that ends with it.
  const cases: Array<[string, string, string]> = [
    [
      "a sentence explaining the invoke tag",
      "Anthropic-style templates wrap each call in an <invoke name=\"bash\"> element with one <parameter> per argument, and the harness parses that before it runs anything.",
      '<invoke name="bash">\n<parameter name="command">ls</parameter>\n</invoke>',
    ],
    [
      "Cline's read_file with a nested path, explained",
      "Cline asks for a file with a tag like <read_file><path>src/a.ts</path></read_file>, which its extension turns into a real read before the next turn.",
      "Let me read it.\n<read_file>\n<path>src/a.ts</path>\n</read_file>",
    ],
    ["a JSX component named Read", "I added a <Read> component that renders the file preview, and the sidebar now uses it for every open tab.", "I'll look at the file:\n<read>src/a.ts</read>"],
    ["a JSX element with props", "The page now renders\n<Read file={path} onClose={close} />", "<read path=\"src/a.ts\"/>"],
    [
      "a quoted JSON tool schema",
      'The tool is declared as {"name": "read_file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}} in the registry.',
      '{"name": "read_file", "arguments": {"path": "src/a.ts"}}',
    ],
    [
      "a tool_use block described mid-sentence",
      'Each {"type": "tool_use", "id": "toolu_1", "name": "edit", "input": {}} block in the response is answered by a tool_result block with the same id in the next user message.',
      '{"type": "tool_use", "id": "toolu_1", "name": "edit", "input": {"file_path": "a.ts"}}',
    ],
  ]
  test.each(cases)("%s", (_name, prose, call) => {
    expect(findToolCallText(prose)).toBeUndefined()
    expect(findToolCallText(call)).toBeDefined()
  })

  test("a call written as a function call at the start of a line ends the reply; the same line explained is prose", () => {
    expect(findToolCallText('Fixing the import.\n\nedit(filePath="src/a.ts", oldString="foo", newString="bar")')?.form).toBe("pythonic")
    expect(findToolCallText('Then the tests.\n\nbash({"command": "bun test"})')?.form).toBe("pythonic")
    expect(findToolCallText('edit(filePath="src/a.ts", oldString="foo", newString="bar")\nis how the helper is called from the plugin, with both strings taken as literal text rather than patterns.')).toBeUndefined()
    expect(findToolCallText('render(filePath="a")')).toBeUndefined()
  })

  test("a call in the code block that ends the reply is printed; a code block followed by prose is an example", () => {
    const block = '```json\n{"name": "bash", "arguments": {"command": "npm test"}}\n```'
    expect(findToolCallText(`I'll run the tests.\n\n${block}`)?.detail).toMatch(/^in the closing code block/)
    expect(findToolCallText(`The format is:\n\n${block}\n\nThe harness parses it and runs the command before the next turn.`)).toBeUndefined()
    const react = "```\nThought: check the lint errors\nAction: bash\nAction Input: npm run lint\n```"
    expect(findToolCallText(`Now the linter.\n\n${react}`)?.form).toBe("react")
    expect(findToolCallText(`Now the linter.\n\n\`\`\`ts\nconst answer = compute(input)\n\`\`\``)).toBeUndefined()
  })

  test("a mention earlier in the reply does not hide the call that ends it", () => {
    const text = "Models like <invoke> users see in the logs are printed, not run; I'll make the call properly now.\n<tool_call>\n{\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}\n</tool_call>"
    expect(findToolCallText(text)?.form).toBe("xml-tag")
  })
})

describe("tool call in a message", () => {
  test("reads the text parts, newest last, and skips host-injected ones", () => {
    expect(toolCallInText(said("<tool_call>"))?.form).toBe("xml-tag")
    const injected = assistant([{ kind: "text", text: "<tool_call>", synthetic: true }])
    expect(toolCallInText(injected)).toBeUndefined()
    expect(toolCallInText(thought("<tool_call>", "All good."))).toBeUndefined()
    expect(toolCallInText(undefined)).toBeUndefined()
  })

  test("many parts are joined in order", () => {
    const m = assistant([
      { kind: "text", text: "First" },
      { kind: "text", text: "<function=bash>" },
    ])
    expect(toolCallInText(m)?.form).toBe("xml-tag")
  })
})

describe("thinking-tool: a call left in the reasoning", () => {
  test.each([
    ["Qwen tool_call in thinking", thought("I need the file.\n<tool_call>\n{\"name\": \"read\", \"arguments\": {}}\n</tool_call>", "Reading it now.")],
    ["function tag in thinking, no text", thought("<function=edit>\n<parameter=path>a.ts</parameter>")],
    ["JSON call in thinking", thought('I will call {"name": "grep", "arguments": {"pattern": "x"}}')],
  ])("finds %s", (_name, message) => {
    expect(toolCallInReasoning(message)).toBeDefined()
  })

  test.each([
    ["plain reasoning", thought("The user wants a refactor. I should read the file first.")],
    ["a message that did make a tool call", assistant([{ kind: "reasoning", text: "<tool_call>" }, tool("read", "completed")])],
    ["a failed tool call still counts as a call", assistant([{ kind: "reasoning", text: "<tool_call>" }, tool("read", "error")])],
    ["the call is in the text, not the reasoning", thought("fine", "<tool_call>")],
    ["a user message", { id: "u", role: "user" as const, parts: [{ kind: "reasoning" as const, text: "<tool_call>" }] }],
    ["nothing", undefined],
  ])("ignores %s", (_name, message) => {
    expect(toolCallInReasoning(message)).toBeUndefined()
  })
})
