// Imports nothing, so scripts/compile-schemas.js can load it alone: it compiles ajv's draft-07
// meta-schema with these same options into src/generated/meta-schema-validator.ts.

/** Options of the runtime Ajv that compiles model configs (see ./config-schema.ts). */
export const CONFIG_AJV_OPTIONS = {
  allErrors: true,
  strict: true,
  allowUnionTypes: true,
  verbose: true,
} as const;
