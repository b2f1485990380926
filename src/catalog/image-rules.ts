import { Ajv, type ValidateFunction } from 'ajv';

/** Spec 4.3 / section 8: at most 20 reference links per subscription image job. */
export const MAX_REFERENCE_IMAGES = 20;

/** The image job's own parameter for reference images (spec 4.3). */
export const REFERENCE_IMAGES_PARAM = 'referenceImages';

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

/** The param names spec 4.3 documents for the image job (besides `model`, `prompt`, `idempotencyKey`). */
export const IMAGE_JOB_PARAMS: ReadonlySet<string> = new Set(Object.keys(IMAGE_JOB_SCHEMA.properties));

let validator: ValidateFunction | undefined;

/** The compiled spec 4.3 validator; compiled on first use and then reused. */
export function getImageJobValidator(): ValidateFunction {
  validator ??= new Ajv({ allErrors: true, strict: true, verbose: true }).compile(IMAGE_JOB_SCHEMA);
  return validator;
}

/**
 * Spec 4.3: "a very short prompt fails with failureKind PROMPT_UNCLEAR". The service's threshold is not
 * published; fewer than 4 words or fewer than 20 characters is treated as very short (a warning).
 */
export function isPromptTooShort(prompt: string): boolean {
  const text = prompt.trim();
  if (text.length < 20) return true;
  // Words are what `text.split(/\s+/)` gives; counting the gaps up to three builds no array.
  const gaps = /\s+/g;
  for (let words = 1; words < 4; words++) if (gaps.exec(text) === null) return true;
  return false;
}
