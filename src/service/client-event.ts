/** What the client tells its caller while it waits; the CLI and logs render these. */
export type ClientEvent =
  | {
      type: 'retry';
      method: string;
      path: string;
      attempt: number;
      delayMs: number;
      reason: string;
    }
  | { type: 'request'; method: string; path: string; status: number; durationMs: number }
  /** A 429 or `AGENT_QUEUE_FULL` paused every request of the account; reported once per pause. */
  | { type: 'rate-limit-pause'; method: string; path: string; delayMs: number; reason: string }
  /**
   * Another machine of the account met a 429 (its pause shared through the state database): every
   * request of this one waits until `until` (epoch ms, this machine's clock). Reported once per pause
   * it starts, not per request; one that only lengthens a pause in force is not reported again.
   */
  | { type: 'rate-limit-followed'; delayMs: number; until: number; reason: string };
