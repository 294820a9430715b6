/** The recovery paths the engine runs by default as modules; the paths of paths/index.ts come on top. */
import type { ModuleFactory } from "../module.ts"

export function defaultModules(): ModuleFactory[] {
  return []
}
