/** The recovery paths the engine runs by default; stall recovery (silent-stream.ts, always run) and the finished-turn judge come on top. */
import type { ModuleFactory } from "../module.ts"
import type { ToolNames } from "../tool-names.ts"
import { contextSaturationModule } from "./context-saturation.ts"
import { loopsModule } from "./loops.ts"
import { repetitionModule } from "./repetition.ts"
import { providerFailuresModule } from "./provider-failures.ts"
import { fallbackModule } from "./fallback.ts"
import { subagentsModule } from "./subagents.ts"
import { unknownToolsModule } from "./unknown-tools.ts"

export function defaultModules(toolNames: ToolNames): ModuleFactory[] {
  return [providerFailuresModule, loopsModule, repetitionModule, (env) => unknownToolsModule(env, toolNames), contextSaturationModule, subagentsModule, fallbackModule]
}
