import { parseS3Location } from './backends/s3/s3-location.js';
import type { S3ResultsStore, S3StoreOptions } from './backends/s3/s3-store.js';

export { isS3Output } from './backends/s3/s3-location.js';

/**
 * The results store of an `s3://bucket/prefix` output. The URL is checked first (a URL carrying
 * credentials is refused before anything loads); the AWS SDK is loaded only then, so that a folder
 * output's start-up and the bundle of every other command stay as they were.
 */
export async function openS3ResultsStore(output: string, options?: S3StoreOptions): Promise<S3ResultsStore> {
  const location = parseS3Location(output);
  const { createS3ResultsStore } = await import('./backends/s3/s3-store.js');
  return createS3ResultsStore(location, options);
}
