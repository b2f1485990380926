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
  | { type: 'rate-limit-pause'; method: string; path: string; delayMs: number; reason: string };
