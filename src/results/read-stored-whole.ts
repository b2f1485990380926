import type { ResultsStore } from './results-store.js';

/**
 * An object of the store read into memory whole, for the small ones a command reads rather than
 * streams (a run's claim, an image to make a thumbnail of, a thumbnail): undefined when the store
 * does not hold it, `too-large` as soon as it passes `maxBytes` (read no further).
 */
export async function readStoredWhole(
  store: ResultsStore,
  key: string,
  maxBytes = Number.POSITIVE_INFINITY,
): Promise<Buffer | 'too-large' | undefined> {
  const body = await store.get(key);
  if (body === undefined) return undefined;
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.byteLength;
    if (bytes > maxBytes) return 'too-large';
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
