/** Tool calls printed as text instead of being made, in the formats models emit. */
import { group, type Sample } from "./types.ts"

const FENCE = "```"

export const TOOL_CALL: Sample[] = [
  // Formats caught before this corpus was written (Hermes/Qwen, GLM, DeepSeek, Anthropic, Mistral, Kimi).
  ...group("tool-call", "en", [
    'I\'ll read the file first.\n<tool_call>\n{"name": "read", "arguments": {"filePath": "src/a.ts"}}\n</tool_call>',
    "Let me list the files.\n<function=bash>\n<parameter=command>ls -la</parameter>\n</function>",
    '<function_calls>\n<invoke name="bash">\n<parameter name="command">bun test</parameter>\n</invoke>\n</function_calls>',
    '[TOOL_CALLS][{"name": "read", "arguments": {"filePath": "README.md"}}]',
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.read:0<|tool_call_argument_begin|>{\"filePath\": \"a.ts\"}<|tool_call_end|>",
    "<tool_call>bash\n<arg_key>command</arg_key>\n<arg_value>git status</arg_value>\n</tool_call>",
    '<\uff5ctool\u2581calls\u2581begin\uff5c><\uff5ctool\u2581call\u2581begin\uff5c>function<\uff5ctool\u2581sep\uff5c>read',
  ]),
  ...group("tool-call", "zh", ['我先看一下文件。\n<tool_call>\n{"name": "read", "arguments": {"filePath": "src/a.ts"}}\n</tool_call>']),
  // Llama 3.x pythonic calls.
  ...group("tool-call", "en", [
    '[read(filePath="src/a.ts")]',
    "Let me check the config.\n[read(filePath=\"opencode.json\")]",
    '[bash(command="bun test"), read(filePath="test/a.test.ts")]',
    '[edit(filePath="src/a.ts", oldString="foo", newString="bar")]',
    '[grep(pattern="TODO", path="src")]',
  ]),
  ...group("tool-call", "de", ['Ich schaue mir die Datei an.\n[read(filePath="src/a.ts")]']),
  ...group("tool-call", "ja", ['ファイルを確認します。\n[glob(pattern="**/*.ts")]']),
  // gpt-oss harmony.
  ...group("tool-call", "en", [
    '<|channel|>commentary to=functions.read <|constrain|>json<|message|>{"filePath":"src/a.ts"}<|call|>',
    'I need to look at the test.<|start|>assistant<|channel|>commentary to=functions.bash<|message|>{"command":"bun test"}<|call|>',
    '<|channel|>commentary to=functions.edit json<|message|>{"filePath":"a.ts","oldString":"x","newString":"y"}',
  ]),
  ...group("tool-call", "fr", ['Je regarde le fichier.<|channel|>commentary to=functions.read<|message|>{"filePath":"a.ts"}<|call|>']),
  // Gemma tool_code fences.
  ...group("tool-call", "en", [
    `${FENCE}tool_code\nread(filePath="src/a.ts")\n${FENCE}`,
    `Let me run the tests.\n${FENCE}tool_code\nprint(bash(command="bun test"))\n${FENCE}`,
    `${FENCE}tool_call\n{"name": "read", "args": {"filePath": "a.ts"}}\n${FENCE}`,
  ]),
  ...group("tool-call", "es", [`Voy a revisar el archivo.\n${FENCE}tool_code\nread(filePath="src/a.ts")\n${FENCE}`]),
  // Cline / Roo tags.
  ...group("tool-call", "en", [
    "<write_to_file>\n<path>src/a.ts</path>\n<content>export const a = 1\n</content>\n</write_to_file>",
    "<read_file>\n<path>src/a.ts</path>\n</read_file>",
    "<execute_command>\n<command>bun test</command>\n<requires_approval>false</requires_approval>\n</execute_command>",
    "<replace_in_file>\n<path>src/a.ts</path>\n<diff>\n------- SEARCH\nfoo\n=======\nbar\n+++++++ REPLACE\n</diff>\n</replace_in_file>",
    "<apply_diff>\n<path>src/a.ts</path>\n<diff>...</diff>\n</apply_diff>",
    "<list_files>\n<path>src</path>\n<recursive>true</recursive>\n</list_files>",
    "<search_files>\n<path>src</path>\n<regex>TODO</regex>\n</search_files>",
    "I'll create the file.\n\n<write_to_file>\n<path>README.md</path>",
  ]),
  ...group("tool-call", "pt", ["Vou criar o arquivo.\n<write_to_file>\n<path>src/a.ts</path>\n<content>x</content>\n</write_to_file>"]),
  ...group("tool-call", "ru", ["Создам файл.\n<write_to_file>\n<path>src/a.ts</path>\n<content>x</content>\n</write_to_file>"]),
  // ReAct.
  ...group("tool-call", "en", [
    'Thought: I need to see the file.\nAction: read\nAction Input: {"filePath": "src/a.ts"}',
    "Action: bash\nAction Input: bun test",
    'Thought: the test is failing on the import.\nAction: grep\nAction Input: {"pattern": "import x"}\n',
  ]),
  ...group("tool-call", "zh", ['思考：我需要查看文件。\nAction: read\nAction Input: {"filePath": "src/a.ts"}']),
]

/** Near misses: code, examples, links and markup that are not calls. */
export const TOOL_CALL_NEAR_MISSES: Sample[] = [
  ...group("none", "en", [
    "The format models print is:\n```\n<tool_call>\n{\"name\": \"read\"}\n</tool_call>\n```\nThe plugin now recognises it.",
    "See the docs [here](https://example.com/docs) and the changelog [1].",
    "- [x] parser\n- [x] tests\n- [ ] docs (left for later)",
    "The fix was `items[index(i)]` instead of `items[i]`.",
    "Call `read(filePath)` with an absolute path; relative paths are rejected.",
    "Action: rename the variable everywhere it is used. I did that in three files.",
    "The component renders a <div> around each <span> now.",
    "The generic `Map<K, V>` replaced the plain object, so key order is kept.",
    "In Python you would write:\n```python\nresult = [read(path=p) for p in paths]\n```\nOur helper does the same in TypeScript.",
    'The config now has {"name": "my-app", "version": "1.0.0"} at the top.',
    "The <|endoftext|> token was leaking into the logs; it is filtered out now.",
    "The array is `[a, b, c]` and the call is `f(x=1)` in the example.",
    "Gemma prints ```tool_code fences; see the README for the list of formats.",
    "Roo's tags such as write_to_file are documented in their repo; ours are different.",
    "The tests use `[bash(command=\"ls\")]` as a fixture string.",
    "<|channel|>final<|message|>The answer is 42: the loop ran 42 times.",
    "Action items: add tests, then update the docs. Both are done.",
  ]),
  ...group("none", "zh", ["模型打印的格式是 `<tool_call>`，插件现在能识别。", "配置里加了 [名称](https://example.com) 链接。"]),
  ...group("none", "es", ["El formato es `[read(filePath=\"a\")]`; ahora se detecta.", "Acción: renombré la variable en tres archivos."]),
  ...group("none", "pt", ["Usei `<write_to_file>` só como exemplo no README.", "A lista é [a, b, c] e está ordenada."]),
  ...group("none", "de", ["Das Beispiel `Action: read` steht in der Doku.", "Die Komponente rendert jetzt ein <div> um jede Zeile."]),
  ...group("none", "fr", ["Le format `<|call|>` de gpt-oss est maintenant reconnu.", "Voir [la doc](https://example.com)."]),
  ...group("none", "ja", ["Gemma は ```tool_code``` ブロックを出力します。", "配列は [1, 2, 3] です。"]),
  ...group("none", "ru", ["Формат `Action:` / `Action Input:` описан в README.", "Список: [a, b, c]."]),
]
