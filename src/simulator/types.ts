import type { Clock } from '../clock.js';
import type { Dialect, HostileOptions } from './dialect.js';

export type { Dialect, HostileOptions } from './dialect.js';

/**
 * The embedded simulator's public handle. It serves the whole spec over real HTTP on 127.0.0.1 so tests
 * and demos exercise the real client; every duration is multiplied by `timeScale`.
 */

export interface FaultOptions {
  /** Probability per API request of an HTTP 500. */
  serverError?: number;
  /** Probability per API request of an HTTP 429 with `Retry-After`. */
  rateLimit?: number;
  /** Probability per API request of a socket reset (connection destroyed without an answer). */
  reset?: number;
  /** Probability per API request of a slow answer (`slowMs` of extra latency, not time-scaled). */
  slow?: number;
  slowMs?: number;
  /** Seconds sent in `Retry-After` on injected 429s. @default 1 */
  retryAfterSeconds?: number;
}

export interface SimulatorOptions {
  /** @default 0 (any free port) */
  port?: number;
  /** Multiplies every simulated duration: 0.005 makes a 60 s job take 0.3 s. @default 1 */
  timeScale?: number;
  /** Seeds fault injection and every other random choice. @default 1 */
  seed?: number;
  faults?: FaultOptions;
  /** The key requests must carry in `X-Api-Key`. @default 'sim-key-0000' */
  apiKey?: string;
  /** Starting balance. */
  account?: { freeCredit?: number; purchasedCredit?: number; subscriptionImageQuota?: number };
  /** Simulated job duration before time scaling. @default 45_000 for images, 120_000 for videos */
  jobDurationMs?: { image?: number; video?: number };
  /** The subscription image model's slug (api-notes). @default 'chatgpt-image-sangtao' */
  imageModelSlug?: string;
  /**
   * Lists a second model of category `image` under this slug, with other params (`style`, `steps`) and
   * another price (6 credits), as a catalog may (issue #33.16). The image job endpoint refuses it like any
   * model but the subscription one (spec 4.3: HTTP 400 `INVALID_MODEL`). @default none
   */
  secondImageModel?: string;
  /** Idempotency window before time scaling. @default 300_000 */
  idempotencyWindowMs?: number;
  /** Per-user running-job limit (spec 8). @default 4 */
  concurrencyLimit?: number;
  /** The legacy key the balance response leaks in `apiKey` (spec 2.5). @default 'legacy-<hex from seed>' */
  legacyApiKey?: string;
  /** Queued jobs beyond this are refused with HTTP 429 `AGENT_QUEUE_FULL`. @default unlimited */
  maxQueueDepth?: number;
  /** `Retry-After` seconds on `AGENT_QUEUE_FULL`. @default max(1, ceil(60 × timeScale)) */
  queueFullRetryAfterSeconds?: number;
  /** `tier` of `GET /account/subscription`. @default 'Pro' */
  subscriptionTier?: string;
  /**
   * Serve `GET /jobs?since=ISO` (the account's jobs created since then: jobId, kind, model, prompt,
   * status, createdAt). Not in the spec, so off by default: the real service may have no listing, and
   * then answers 404 like this simulator does without the option (issue #11.9). @default false
   */
  jobListing?: boolean;
  /**
   * How far the service's clock is ahead of (positive) or behind (negative) the simulator's own time, in
   * real milliseconds (not time-scaled): the job listing's `createdAt` and `since`, and every API
   * answer's `Date` header, use the service's clock (issue #24.8). @default 0
   */
  clockOffsetMs?: number;
  /** The simulator's time source (only `now()` is used; the lifecycle is computed lazily). @default Date.now */
  clock?: Pick<Clock, 'now'>;
  /**
   * A careless service (issue #24.6): every error text ends with the API key and the legacy key, and
   * result URLs carry the API key in their path (served only so). `every-encoding` (issue #32.2): each
   * key is echoed in every form of {@link keyEncodings} (lower-case percent, every byte percent-encoded,
   * HTML entities, JSON `\u` escapes, base64), and result URLs carry it with lower-case `%2b`.
   * @default false
   */
  echoApiKey?: boolean | 'every-encoding';
  /** Answer shapes beyond the spec (api-notes); absent: the spec's shapes. */
  dialect?: Dialect;
  /** Huge and slow answers; absent: none. */
  hostile?: HostileOptions;
}

/** A test-time change of the account (`POST /__sim/account`, {@link Simulator.setAccount}). */
export interface AccountPatch {
  freeCredit?: number;
  purchasedCredit?: number;
  subscriptionImageQuota?: number;
  hasPurchased?: boolean;
}

/** What the inspection endpoint (`GET /__sim/stats`) and `Simulator.stats()` report. */
export interface SimulatorStats {
  jobsCreated: number;
  /** Creates answered with an existing job because the idempotency key was repeated. */
  idempotentReplays: number;
  /** Credits deducted in all (free + purchased), net of releases for failed jobs. */
  creditsCharged: number;
  /** Jobs covered by the subscription quota. */
  subscriptionJobs: number;
  maxRunningAtOnce: number;
  /** Most jobs open (queued or running) at one moment. */
  maxOpenAtOnce: number;
  /** Requests answered 429 by {@link Simulator.rateLimitNext}. */
  rateLimitedOnDemand: number;
  /**
   * API requests that arrived while a `Retry-After` the simulator gave (an injected or on-demand 429)
   * was running: a careful client sends none on any machine of the account (api-notes; #31.5).
   */
  requestsInsideRetryAfter: number;
  /**
   * For the first 1,000 of {@link requestsInsideRetryAfter}: how many ms after the 429 that opened its
   * window each arrived (a request already on its way when the 429 was answered arrives early in it).
   */
  insideRetryAfterMs: number[];
  /** jobId → number of polls. */
  pollsPerJob: Record<string, number>;
  /** Requests by `METHOD path-template`, e.g. `POST /agents/jobs/create`. */
  requests: Record<string, number>;
  faultsInjected: { serverError: number; rateLimit: number; reset: number; slow: number };
  /**
   * Requests for a result link (`/__results/…`, or a `?result=` link of the `resultsOnApi` hostile
   * option) that carried an `X-Api-Key` header, whatever its value: a client must send none.
   */
  resultRequestsWithKey: number;
  jobs: {
    jobId: string;
    kind: string;
    model: string;
    status: string;
    idempotencyKey?: string;
    creditCost: number;
    chargeSource: string;
    createdAt: number;
  }[];
  /** The account now (credits and the plan's remaining images). */
  account?: {
    freeCredit: number;
    purchasedCredit: number;
    lockedCredit: number;
    subscriptionImageQuota: number;
  };
}

export interface Simulator {
  /** Base URL ending in `/api/v2`, e.g. `http://127.0.0.1:40123/api/v2`. */
  readonly baseUrl: string;
  readonly apiKey: string;
  stats(): SimulatorStats;
  /** Changes the balance or quota mid-run (e.g. drain credits to provoke HTTP 402). */
  setAccount(patch: AccountPatch): void;
  /** Makes the API key invalid from now on: every API request answers 401. */
  revokeApiKey(): void;
  /**
   * The next `count` API requests, whatever they are, answer HTTP 429 with `Retry-After: seconds`; with
   * `createsOnly`, the next `count` create requests (the others pass), e.g. a create that meets a 429
   * while its sender's lease ends.
   */
  rateLimitNext(count: number, retryAfterSeconds: number, options?: { createsOnly?: boolean }): void;
  /**
   * Holds every create request that arrives from now on before it is processed (nothing is made yet,
   * its sender waits for the answer: a create in flight) until `release()`; `held()` counts the
   * requests that arrived meanwhile. For takeovers during a create (issue #31.9).
   */
  holdCreates(): { held(): number; release(): void };
  /** Replaces the hostile answers from now on (`{}`: none), e.g. result links that work again. */
  setHostile(hostile: HostileOptions): void;
  /**
   * Changes the `default` of one config field of a catalog model from now on, as the real service may
   * do between two runs (issue #11.2). Throws when the model or field does not exist.
   */
  setModelDefault(slug: string, field: string, value: unknown): void;
  close(): Promise<void>;
}
