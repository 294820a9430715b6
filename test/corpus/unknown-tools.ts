/**
 * Tool names other agents use, and the OpenCode tool each should be mapped to. `undefined`
 * means no suggestion is right (the name has no counterpart among ours).
 */
export const OPENCODE_TOOLS: readonly string[] = [
  "bash", "read", "write", "edit", "list", "glob", "grep", "patch", "todowrite", "todoread", "webfetch", "websearch", "task", "question", "invalid",
]

export const UNKNOWN_TOOLS: ReadonlyArray<[name: string, expected: string | undefined]> = [
  ["read_file", "read"],
  ["readFile", "read"],
  ["view_file", "read"],
  ["open_file", "read"],
  ["str_replace_editor", "edit"],
  ["str_replace_based_edit_tool", "edit"],
  ["str_replace", "edit"],
  ["replace_in_file", "edit"],
  ["edit_file", "edit"],
  ["apply_diff", "edit"],
  ["search_replace", "edit"],
  ["run_terminal_cmd", "bash"],
  ["run_command", "bash"],
  ["execute_command", "bash"],
  ["shell", "bash"],
  ["terminal", "bash"],
  ["run_shell_command", "bash"],
  ["apply_patch", "patch"],
  ["ls", "list"],
  ["list_dir", "list"],
  ["list_files", "list"],
  ["list_directory", "list"],
  ["write_to_file", "write"],
  ["create_file", "write"],
  ["write_file", "write"],
  ["grep_search", "grep"],
  ["search_files", "grep"],
  ["file_search", "glob"],
  ["find_files", "glob"],
  ["fetch", "webfetch"],
  ["web_fetch", "webfetch"],
  ["web_search", "websearch"],
  ["todo_write", "todowrite"],
  // Plain typos keep their nearest-name suggestion.
  ["bassh", "bash"],
  ["edti", "edit"],
  // Names with no counterpart: no suggestion.
  ["deploy_to_production", undefined],
  ["mcp__github__create_issue", undefined],
  ["jira_create_ticket", undefined],
  ["python", undefined],
  ["browser_action", undefined],
  ["send_slack_message", undefined],
]
