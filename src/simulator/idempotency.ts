/**
 * Spec 4.3 rule 4: a repeated `idempotencyKey` within the window returns the same job and charges
 * nothing. Only the key is compared, never the body.
 */
export interface IdempotencyStore {
  /** The job remembered for `key`, when the key was first used less than the window ago. */
  lookup(key: string, now: number): string | undefined;
  /** Remembers `jobId` for `key` from `now` until `now + windowMs`. */
  remember(key: string, jobId: string, now: number): void;
}

/** @param windowMs the (already time-scaled) window length. */
export function createIdempotencyStore(windowMs: number): IdempotencyStore {
  const entries = new Map<string, { jobId: string; expiresAt: number }>();
  return {
    lookup(key, now) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      if (now >= entry.expiresAt) {
        entries.delete(key);
        return undefined;
      }
      return entry.jobId;
    },
    remember(key, jobId, now) {
      entries.set(key, { jobId, expiresAt: now + windowMs });
    },
  };
}
