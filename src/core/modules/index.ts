/** The engine modules run by default: none since every recovery path is a path (paths/index.ts); the machinery stays for the tests that plug a module in. */
import type { ModuleFactory } from "../module.ts"

export function defaultModules(): ModuleFactory[] {
  return []
}
