/** The recovery paths the engine runs by default as modules; the paths of paths/index.ts (stall, loops) and the finished-turn judge come on top. */
import type { ModuleFactory } from "../module.ts"
import type { ToolNames } from "../tool-names.ts"
import { contextSaturationModule } from "./context-saturation.ts"
import { compactionHandoff, contextWindowModule } from "./context-window.ts"
import { repetitionModule } from "./repetition.ts"
import { providerFailuresModule } from "./provider-failures.ts"
import { fallbackModule } from "./fallback.ts"
import { subagentsModule } from "./subagents.ts"
import { unknownToolsModule } from "./unknown-tools.ts"

export function defaultModules(toolNames: ToolNames): ModuleFactory[] {
  // One per engine: the saturation check hands a nearly full parent to the context window module.
  const handoff = compactionHandoff()
  return [
    providerFailuresModule,
    (env) => contextWindowModule(env, handoff),
    repetitionModule,
    (env) => unknownToolsModule(env, toolNames),
    (env) => contextSaturationModule(env, handoff),
    subagentsModule,
    fallbackModule,
  ]
}
