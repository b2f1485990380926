import type { Balance, JobCreation, JobRecord, Model, ModelCategory, Subscription } from './types.js';
import type { DownloadSink, StoredBody } from './download.js';
import type { SharedRateLimit } from './rate-limit-gate.js';

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** Options of a create. */
export interface CreateCallOptions extends CallOptions {
  /**
   * Asked before each re-send of the create inside the client's retry loop (after a 429's wait, a
   * 5xx's backoff): false withholds it, and the create fails with a STATE_LOCKED `ResendWithheldError`.
   */
  beforeResend?: () => Promise<boolean>;
}

/** Options of a result download. */
export interface DownloadOptions extends CallOptions {
  /**
   * The service's job id and the result's position among its results: a result URL that held the API
   * key is kept only redacted, and a later process fetches it by polling this job again (issue #24.6).
   */
  jobId?: string;
  resultIndex?: number;
}

/**
 * A creation endpoint as the client needs it: where to send the create and whether the service takes
 * its `idempotencyKey` there. A job kind's adapter (`src/kinds/`) is one; the client reads no kind.
 */
export interface CreateEndpoint {
  /** Path relative to the base URL, e.g. `/agents/jobs/create`. */
  readonly createPath: string;
  /** Whether the service documents `idempotencyKey` for this endpoint (spec 4.3 rule 4). */
  readonly idempotent: boolean;
}

export interface CreateJobRequest {
  /** The job kind's endpoint (its adapter). */
  endpoint: CreateEndpoint;
  /** The full body from the kind's adapter (without `idempotencyKey`). */
  body: Record<string, unknown>;
  /**
   * Sent as the body's `idempotencyKey`. A create is retried after a fault only when this is set
   * (spec 4.3 rule 4); without it only failures that prove nothing was created are retried.
   */
  idempotencyKey?: string;
  /**
   * When an earlier send with the same key may already have reached the service (a crashed run, a
   * lost answer): its time on the client's clock. Re-sends then stop at the key's window counted from
   * it, and a refusal is not taken as proof that nothing was made.
   */
  earlierSendAt?: number;
}

/** A typed client for the whole service (api-spec.md section 4 plus the upload flow of api-notes). */
export interface ServiceClient {
  /** `GET /models` (spec 4.1). */
  listModels(query?: { category?: ModelCategory }, options?: CallOptions): Promise<Model[]>;
  /** `GET /account/balance` (spec 4.2). The response's `apiKey` is dropped here. */
  getBalance(options?: CallOptions): Promise<Balance>;
  /** `GET /account/subscription` (api-notes). `undefined` when the service has no such endpoint (404). */
  getSubscription(options?: CallOptions): Promise<Subscription | undefined>;
  /** `POST` to the kind's creation endpoint (spec 4.3, 4.5). */
  createJob(request: CreateJobRequest, options?: CreateCallOptions): Promise<JobCreation>;
  /** `GET /jobs/{jobId}` (spec 4.4). */
  getJob(jobId: string, options?: CallOptions): Promise<JobRecord>;
  /**
   * `GET /jobs?since=…`: the account's recent jobs, to find a job whose create answer was lost when
   * the endpoint takes no idempotency key (issue #11.9). NOT in the spec: the service may have no such
   * listing, and then (HTTP 404) this resolves to `undefined`. Optional for test doubles.
   */
  findRecentJobs?(query: { since: number }, options?: CallOptions): Promise<ListedJob[] | undefined>;
  /**
   * How far the service's clock is ahead of this machine's (negative: behind), in ms, as measured from
   * the `Date` header of its latest answer (to about a second); `undefined` before any answer had one.
   */
  serviceClockOffsetMs?(): number | undefined;
  /**
   * Shares the account's 429 pauses with its other machines (#31.5): a `Retry-After` this client meets
   * is shared, and every request waits out the pauses the others share, until the returned function is
   * called. Optional for test doubles.
   */
  shareRateLimit?(shared: SharedRateLimit): () => void;
  /**
   * The upload flow (spec 4.6, api-notes): presign, then PUT the bytes to `sasUrl`.
   * Returns the `publicUrl` to put in `referenceImages`.
   */
  uploadImage(
    file: { fileName: string; contentType: string; bytes: Uint8Array },
    options?: CallOptions,
  ): Promise<string>;
  /**
   * Streams a result into `sink` (a results store's put): checked first (status, size cap, the media
   * sniff of its first bytes: an answer that is not media reaches no sink), retried as a safe GET (each
   * attempt restarts the sink), and returns what the sink stored. The API key is never sent. `url` is a
   * result URL as the client returned it (redacted when it held a key; see {@link DownloadOptions}).
   */
  downloadTo(url: string, sink: DownloadSink, options?: DownloadOptions): Promise<StoredBody>;
  /** Closes the keep-alive agent. */
  close(): Promise<void>;
}

/** One job of a recent-jobs listing: enough to recognise a job whose create answer was lost. */
export interface ListedJob {
  jobId: string;
  model?: string;
  prompt?: string;
  /**
   * When the service made the job, on THIS machine's clock (ms since the epoch): the listing's time
   * corrected by the clock offset measured from the service's `Date` header. Absent when not listed.
   */
  createdAt?: number;
  /** The create's body as the listing shows it (without `idempotencyKey`), when it does. */
  payload?: Record<string, unknown>;
}
