/** The recovery paths the engine runs by default as modules; the paths of paths/index.ts and the finished-turn judge come on top. */
import type { ModuleFactory } from "../module.ts"
import { contextSaturationModule } from "./context-saturation.ts"
import { compactionHandoff, contextWindowModule } from "./context-window.ts"
import { providerFailuresModule } from "./provider-failures.ts"
import { fallbackModule } from "./fallback.ts"
import { subagentsModule } from "./subagents.ts"

export function defaultModules(): ModuleFactory[] {
  // One per engine: the saturation check hands a nearly full parent to the context window module.
  const handoff = compactionHandoff()
  return [
    providerFailuresModule,
    (env) => contextWindowModule(env, handoff),
    (env) => contextSaturationModule(env, handoff),
    subagentsModule,
    fallbackModule,
  ]
}
