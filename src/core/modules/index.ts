/** The recovery paths the engine runs besides stall recovery, one module each. */
import type { ModuleFactory } from "../module.ts"
import type { ToolNames } from "../tool-names.ts"
import { failuresModule } from "./failures.ts"
import { fallbackModule } from "./fallback.ts"
import { saturationModule } from "./saturation.ts"
import { subagentsModule } from "./subagents.ts"
import { toolsModule } from "./tools.ts"

export function defaultModules(toolNames: ToolNames): ModuleFactory[] {
  return [failuresModule, (env) => toolsModule(env, toolNames), saturationModule, subagentsModule, fallbackModule]
}
