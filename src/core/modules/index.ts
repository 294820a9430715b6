/** The recovery paths the engine runs besides stall recovery and the finished-turn judge, one module each. */
import type { ModuleFactory } from "../module.ts"
import type { ToolNames } from "../tool-names.ts"
import { contextSaturationModule } from "./context-saturation.ts"
import { loopsModule } from "./loops.ts"
import { providerFailuresModule } from "./provider-failures.ts"
import { fallbackModule } from "./fallback.ts"
import { subagentsModule } from "./subagents.ts"
import { unknownToolsModule } from "./unknown-tools.ts"

export function defaultModules(toolNames: ToolNames): ModuleFactory[] {
  return [providerFailuresModule, loopsModule, (env) => unknownToolsModule(env, toolNames), contextSaturationModule, subagentsModule, fallbackModule]
}
