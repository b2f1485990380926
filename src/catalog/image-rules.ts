import type { ValidateFunction } from 'ajv';
import { validate as validateImageJob } from '../generated/image-job-validator.js';
import { IMAGE_JOB_SCHEMA } from './image-job-schema.js';

export { IMAGE_JOB_SCHEMA, MAX_REFERENCE_IMAGES } from './image-job-schema.js';

/** The image job's own parameter for reference images (spec 4.3). */
export const REFERENCE_IMAGES_PARAM = 'referenceImages';

/** The param names spec 4.3 documents for the image job (besides `model`, `prompt`, `idempotencyKey`). */
export const IMAGE_JOB_PARAMS: ReadonlySet<string> = new Set(Object.keys(IMAGE_JOB_SCHEMA.properties));

/**
 * The spec 4.3 validator, compiled from {@link IMAGE_JOB_SCHEMA} at build time
 * (`npm run schemas`, see scripts/compile-schemas.js).
 */
export function getImageJobValidator(): ValidateFunction {
  return validateImageJob as ValidateFunction;
}

/**
 * Spec 4.3: "a very short prompt fails with failureKind PROMPT_UNCLEAR". The service's threshold is not
 * published; fewer than 4 words or fewer than 20 characters is treated as very short (a warning).
 */
export function isPromptTooShort(prompt: string): boolean {
  const text = prompt.trim();
  return text.length < 20 || !FOUR_WORDS.test(text);
}

/**
 * Four words as `text.split(/\s+/)` counts them in a trimmed text: three gaps between non-space runs.
 * One test of a constant pattern, three times faster than finding the gaps one by one.
 */
const FOUR_WORDS = /\S\s+\S+\s+\S+\s+\S/;
