/** Public surface of the options module; everything else imports from here. */
export { OPTION_DEFAULTS, optionsSchema, overridesSchema, type OptionName, type Options, type Overrides } from "./schema.ts"
export { MAX_TIMER_MS, type OptionInfo } from "./spec-builders.ts"
export * from "./constants.ts"
export { ENV_OVERRIDES, parseSwitch, resolveOptions, type EnvOverride, type ResolvedOptions } from "./resolve.ts"
export { PROFILE_DEFAULTS, effectiveOptions, isLocalProvider, profileOf, type Profile } from "./profiles.ts"
export { OPTION_DOCS, optionsJsonSchema, type OptionDoc } from "./docs.ts"
