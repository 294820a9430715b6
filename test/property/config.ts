/**
 * Seed and size of the property runs. CI uses the fixed seed; a failure prints the seed and
 * the replay path, and `PROPERTY_SEED=<n> bun test test/property` reproduces it.
 *
 *   PROPERTY_SEED  integer seed (default: fixed)
 *   PROPERTY_RUNS  scenarios per adapter (default: CI_RUNS)
 *   PROPERTY_PATH  fast-check replay path printed by a failure (optional)
 */
export const FIXED_SEED = 20_260_107

export const CI_RUNS = 120

function intFromEnv(name: string): number | undefined {
  const raw = process.env[name]
  if (raw === undefined || raw.trim() === "") return undefined
  const n = Number(raw)
  return Number.isSafeInteger(n) ? n : undefined
}

export function propertySeed(): number {
  return intFromEnv("PROPERTY_SEED") ?? FIXED_SEED
}

export function propertyRuns(fallback = CI_RUNS): number {
  return intFromEnv("PROPERTY_RUNS") ?? fallback
}

export function propertyPath(): string | undefined {
  const raw = process.env.PROPERTY_PATH
  return raw && raw.trim() !== "" ? raw.trim() : undefined
}
