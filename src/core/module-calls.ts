/**
 * Calls into the recovery modules on the engine's behalf: a module that throws is logged as a
 * fault of its own and the others still run, so one broken path never stops the rest; and who
 * hears which signal.
 */
import { errorText, type CoreLogger } from "./logger.ts"
import type { EngineModule } from "./module.ts"
import { ALL_SIGNAL_TYPES, type SignalType } from "./port.ts"

/** Runs `call` on each module in turn; `what` ("failed on idle", ...) ends the fault line. */
export function everyModule(modules: readonly EngineModule[], logger: CoreLogger, what: string, call: (module: EngineModule) => void): void {
  for (const module of modules) {
    try {
      call(module)
    } catch (error) {
      logger.fault(`module:${module.name}`, `${module.name} ${what}: ${errorText(error)}`)
    }
  }
}

/** The first module whose answer is neither undefined nor false; a module that throws is skipped. */
export function firstModule<T>(modules: readonly EngineModule[], logger: CoreLogger, what: string, ask: (module: EngineModule) => T | undefined | false): T | undefined {
  for (const module of modules) {
    try {
      const answer = ask(module)
      if (answer !== undefined && answer !== false) return answer
    } catch (error) {
      logger.fault(`module:${module.name}`, `${module.name} ${what}: ${errorText(error)}`)
    }
  }
  return undefined
}

/** Per signal type, the modules that hear it (EngineModule.signals; all types when unsaid). */
export function signalListeners(modules: readonly EngineModule[]): Map<SignalType, EngineModule[]> {
  const listeners = new Map<SignalType, EngineModule[]>()
  for (const module of modules) {
    if (!module.onSignal) continue
    for (const type of module.signals ?? ALL_SIGNAL_TYPES) {
      const list = listeners.get(type)
      if (list) list.push(module)
      else listeners.set(type, [module])
    }
  }
  return listeners
}
