/**
 * Every recovery path the runtime runs (runtime/path.ts): the one file that names them, handed
 * to the engine by the instance that starts it (host/instance.ts).
 */
import type { AnyPath } from "../runtime/path.ts"
import { contextPath } from "./context/path.ts"
import { failingToolsPath } from "./failing-tools/path.ts"
import { goalPath } from "./goal/path.ts"
import { judgePath } from "./judge/path.ts"
import { loopsPath } from "./loops/path.ts"
import { repetitionPath } from "./repetition/path.ts"
import { providerFailuresPath } from "./provider-failures/path.ts"
import { stallPath } from "./stall/path.ts"
import { subagentsPath } from "./subagents/path.ts"
import { taskCompletePath } from "./task-complete/path.ts"
import { unattendedPath } from "./unattended/path.ts"
import { unknownToolsPath } from "./unknown-tools/path.ts"

export const recoveryPaths: readonly AnyPath[] = [
  providerFailuresPath,
  subagentsPath,
  stallPath,
  loopsPath,
  repetitionPath,
  unknownToolsPath,
  failingToolsPath,
  taskCompletePath,
  judgePath,
  contextPath,
  goalPath,
  unattendedPath,
]
