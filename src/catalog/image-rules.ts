import type { ValidateFunction } from 'ajv';
import { validate as validateImageJob } from '../generated/image-job-validator.js';
import type { Model } from '../service/types.js';
import { IMAGE_JOB_SCHEMA } from './image-job-schema.js';

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

/** api-notes: the subscription image model's slug in public clients; the catalog can say otherwise. */
export const DEFAULT_SUBSCRIPTION_IMAGE_MODEL = 'chatgpt-image-sangtao';

/**
 * Spec 4.3: the image job's `model` "must equal the fixed identifier of the subscription image model".
 * Which one that is, from the catalog: its only model of category `image`; among several, the one
 * api-notes names ({@link DEFAULT_SUBSCRIPTION_IMAGE_MODEL}); undefined when the catalog does not tell
 * (then no job is refused for it: the service answers for itself).
 */
export function findSubscriptionImageModel(models: Iterable<Model>): Model | undefined {
  const images = [...models].filter((model) => model.category === 'image');
  if (images.length === 1) return images[0];
  return images.find((model) => model.slug === DEFAULT_SUBSCRIPTION_IMAGE_MODEL);
}

/**
 * Why a job of `model` (category `image`) cannot run as an image job when the catalog's subscription
 * image model is `subscription`: the message and its hint, naming the model, its catalog entry and the
 * endpoint's rule (issue #33.16); undefined when it is the subscription model.
 */
export function describeImageModelRefusal(
  model: Model,
  subscription: Model,
): { message: string; hint: string } | undefined {
  if (model.slug === subscription.slug) return undefined;
  return {
    message: `model ${JSON.stringify(model.slug)} (${JSON.stringify(model.displayName)} in the catalog: category image, ${String(model.creditCost)} credits) cannot be created by kind "image": the image job endpoint (POST /agents/jobs/create, spec 4.3) takes only the subscription image model ${JSON.stringify(subscription.slug)}, and the service refuses any other model there (HTTP 400); the runner knows no other endpoint that creates image jobs`,
    hint: `use model: ${subscription.slug} (its params and price: runner models --category image)`,
  };
}
