import { createHash } from 'node:crypto';

/**
 * The account an API key pays from, as a run's records name it (#31.7): the first 16 hex digits of a
 * SHA-256 of the key. Two keys of one run are told apart without the key ever being written (16 hex
 * digits of a hash cannot be turned back into a key); the same key through another base URL (a
 * proxy) is the same account.
 */
export function accountOfKey(apiKey: string): string {
  return createHash('sha256').update(`runner-account\n${apiKey}`).digest('hex').slice(0, 16);
}
