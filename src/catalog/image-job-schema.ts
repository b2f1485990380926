// The source of the image job's validator: scripts/compile-schemas.js compiles this object at build
// time into src/generated/image-job-validator.ts. It imports nothing, so the script can load it alone.

/** Spec 4.3 / section 8: at most 20 reference links per subscription image job. */
export const MAX_REFERENCE_IMAGES = 20;

/**
 * Spec 4.3's body fields for the subscription image job (`kind: image`), checked on top of the model
 * config even when the catalog's config is looser or does not list them. Unknown params are not
 * judged here (the model config does that), so this schema allows additional properties.
 */
export const IMAGE_JOB_SCHEMA = {
  type: 'object',
  properties: {
    aspectRatio: { type: 'string', minLength: 1 },
    format: { enum: ['png', 'jpeg'] },
    referenceImages: {
      type: 'array',
      maxItems: MAX_REFERENCE_IMAGES,
      items: { type: 'string', minLength: 1 },
    },
    resolution: { enum: ['1K', '2K'] },
    requireTransparent: { type: 'boolean' },
    dpi: { type: 'integer', minimum: 1, maximum: 1200 },
  },
} as const;
