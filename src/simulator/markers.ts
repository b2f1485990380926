/**
 * Prompt markers that make a simulated job fail or misbehave on purpose, so a client's handling of each
 * outcome can be tested deterministically. See README.md.
 */
export interface PromptMarkers {
  /** `[[fail:KIND]]`: every job with this prompt fails with KIND. */
  failKind?: string;
  /** `[[fail-once:KIND]]`: only the first job created with this exact prompt fails with KIND. */
  failOnceKind?: string;
  /** `[[status:X]]`: the job reports the literal status X while it runs. */
  runningStatus?: string;
  /** `[[no-alpha]]`: with `requireTransparent: true` the job fails with TRANSPARENT_CREATION_FAILED. */
  noAlpha: boolean;
  /**
   * `[[two-images]]` / `[[one-image]]`: force the result count instead of the seeded ~10 % of two;
   * `[[images:N]]` forces N (1 to 10,000), more than any real job yields (issue #24.9).
   */
  imageCount?: number;
  /**
   * `[[image-mb:N]]`: each PNG result is padded to at least N MiB (1 to 2,048) with a private chunk
   * every reader skips: a large image to download without the pixels to draw.
   */
  imageMiB?: number;
  /** The prompt with every marker removed and trimmed. */
  text: string;
}

const MARKER = /\[\[([a-z-]+)(?::([^\]]*))?\]\]/gi;

export function parsePromptMarkers(prompt: string): PromptMarkers {
  const markers: PromptMarkers = { noAlpha: false, text: '' };
  for (const match of prompt.matchAll(MARKER)) {
    const name = (match[1] ?? '').toLowerCase();
    const arg = (match[2] ?? '').trim();
    if (name === 'fail' && arg !== '') markers.failKind = arg;
    else if (name === 'fail-once' && arg !== '') markers.failOnceKind = arg;
    else if (name === 'status' && arg !== '') markers.runningStatus = arg;
    else if (name === 'no-alpha') markers.noAlpha = true;
    else if (name === 'two-images') markers.imageCount = 2;
    else if (name === 'one-image') markers.imageCount = 1;
    else if (name === 'images' && /^\d+$/.test(arg) && Number(arg) >= 1 && Number(arg) <= 10_000)
      markers.imageCount = Number(arg);
    else if (name === 'image-mb' && /^\d+$/.test(arg) && Number(arg) >= 1 && Number(arg) <= 2048)
      markers.imageMiB = Number(arg);
  }
  markers.text = prompt.replace(MARKER, '').trim();
  return markers;
}
