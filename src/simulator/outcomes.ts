import { parsePromptMarkers } from './markers.js';
import { hashString } from './random.js';

/** How a simulated job will end, decided when it is created. */
export type JobOutcome =
  | { type: 'complete'; imageCount: number }
  | { type: 'error'; failureKind: string; message: string; atFraction: number };

const MESSAGES: Record<string, string> = {
  PROMPT_UNCLEAR: 'The description is too vague to generate an image.',
  CONTENT_REJECTED: 'The request was rejected by the content policy.',
  TRANSPARENT_CREATION_FAILED: 'A transparent background was requested but the result had no alpha channel.',
  REFERENCE_DOWNLOAD_FAILED: 'A reference image could not be downloaded.',
  GENERATION_TIMEOUT: 'Generation ran out of time.',
  QUOTA_EXHAUSTED: 'The service is temporarily at capacity.',
  SESSION_EXPIRED: 'The generation session expired on the service side.',
  INVALID_PAYLOAD: 'The service could not process the request payload.',
};

/** Prompts shorter than this (markers removed) fail with PROMPT_UNCLEAR. */
export const MIN_PROMPT_LENGTH = 12;

export interface OutcomeInput {
  jobId: string;
  seed: number;
  isImage: boolean;
  prompt: string | undefined;
  requireTransparent: boolean;
  /** Whether a job with this exact prompt was created before (for `[[fail-once:KIND]]`). */
  promptSeenBefore: boolean;
}

function fail(failureKind: string, input: OutcomeInput): JobOutcome {
  // Failure lands partway through the run: between 30 % and 70 % of the duration.
  const atFraction = 0.3 + (hashString(`${input.seed}:${input.jobId}:fail`) % 400) / 1000;
  const message = MESSAGES[failureKind] ?? `The job failed (${failureKind}).`;
  return { type: 'error', failureKind, message, atFraction };
}

/**
 * Markers first (`[[fail:KIND]]`, `[[fail-once:KIND]]`, `[[no-alpha]]`), then the natural short-prompt
 * failure of image jobs; otherwise success with one image, or two for about 1 job in 10 (seeded).
 */
export function decideOutcome(input: OutcomeInput): JobOutcome {
  const markers = parsePromptMarkers(input.prompt ?? '');
  if (markers.failKind !== undefined) return fail(markers.failKind, input);
  if (markers.failOnceKind !== undefined && !input.promptSeenBefore) return fail(markers.failOnceKind, input);
  if (input.requireTransparent && markers.noAlpha) return fail('TRANSPARENT_CREATION_FAILED', input);
  if (input.isImage && markers.text.length < MIN_PROMPT_LENGTH) return fail('PROMPT_UNCLEAR', input);
  if (!input.isImage) return { type: 'complete', imageCount: 1 };
  const seeded = hashString(`${input.seed}:${input.jobId}:images`) % 10 === 0 ? 2 : 1;
  return { type: 'complete', imageCount: markers.imageCount ?? seeded };
}

/** `[[status:X]]` of the prompt, if any. */
export function findRunningStatus(prompt: string | undefined): string | undefined {
  return parsePromptMarkers(prompt ?? '').runningStatus;
}
