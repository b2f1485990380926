/**
 * The typed client for the whole service (api-spec.md section 4 plus the upload flow of api-notes).
 * Transport, retry timing, error mapping and response shapes live in their own files; this one maps
 * each endpoint onto them.
 */
import { systemClock, type Clock } from '../clock.js';
import { requestApi, type ApiCall, type ApiRequestDeps } from './api-request.js';
import { DEFAULT_DOWNLOAD_TIMEOUT_MS, DEFAULT_MAX_DOWNLOAD_BYTES, downloadTo } from './download.js';
import { createHttpError, NotFoundError, UnexpectedResponseError, type RequestContext } from './errors.js';
import { createHttp, DEFAULT_MAX_RESPONSE_BYTES, describeUrl, readHeader } from './http.js';
import { buildJobRecord, readReportedCost, toChargeSource, type RawJobRecord } from './job-status.js';
import { capText } from './cap-text.js';
import { createRateLimitGate } from './rate-limit-gate.js';
import { createSecretRedactor, isRedactedUrl } from './secret-redactor.js';
import { runWithRetry } from './retry-loop.js';
import { DEFAULT_RETRY_OPTIONS, type RetryOptions } from './retry-policy.js';
import { checkSchema, type ApiSchemaName } from './schemas.js';
import type { CreateJobRequest, DownloadOptions, ListedJob, ServiceClient } from './service-client.js';
import type { ClientEvent } from './client-event.js';
import type { Balance, JobCreation, JobRecord, Model, PresignedUpload, Subscription } from './types.js';
import type { Dispatcher } from 'undici';

export interface ServiceClientOptions {
  /** Ends in `/api/v2`, e.g. `https://sangtao.ai/api/v2` (see `resolveServiceConfig`). */
  baseUrl: string;
  apiKey: string;
  /** Replaces the keep-alive Agent; tests pass undici's `MockAgent`. Not closed by `close()`. */
  dispatcher?: Dispatcher;
  /** Sleeps between retries and times requests. @default systemClock */
  clock?: Clock;
  /** Jitter source in [0, 1). @default Math.random */
  random?: () => number;
  retry?: Partial<RetryOptions>;
  /** Deadline per API request. @default 30_000 */
  requestTimeoutMs?: number;
  /** Deadline per download, body and retries included. @default 600_000 */
  downloadTimeoutMs?: number;
  /** Total deadline of one read or presign, retries and rate-limit pauses included. @default 360_000 */
  callDeadlineMs?: number;
  /** Largest JSON answer read; a larger one is an UNEXPECTED_RESPONSE error. @default 10 MB */
  maxResponseBytes?: number;
  /** Largest result file downloaded (`--max-download-size`). @default 2 GB */
  maxDownloadBytes?: number;
  /** Receives retries and finished requests. */
  onEvent?: (event: ClientEvent) => void;
  userAgent?: string;
}

const BALANCE_PATH = '/account/balance';

/** Just above the longest `Retry-After` the client waits for (5 min, `maxRetryAfterMs`). */
const DEFAULT_CALL_DEADLINE_MS = 360_000;

/** Creates the client. Call `close()` when done to release the keep-alive connections. */
export function createServiceClient(options: ServiceClientOptions): ServiceClient {
  const http = createHttp({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
    ...(options.requestTimeoutMs === undefined ? {} : { requestTimeoutMs: options.requestTimeoutMs }),
    ...(options.userAgent === undefined ? {} : { userAgent: options.userAgent }),
  });
  const clock = options.clock ?? systemClock;
  // Every answer, error and event passes through it before the caller sees it (issue #24.6).
  const redactor = createSecretRedactor(options.apiKey);
  const userOnEvent = options.onEvent;
  const onEvent =
    userOnEvent === undefined ? undefined : (event: ClientEvent) => userOnEvent(redactor.redactData(event));
  const gate = createRateLimitGate(clock, onEvent);
  // The service's clock minus ours, from the latest `Date` header (whole seconds: +500 ms centres it).
  let clockOffsetMs: number | undefined;
  const deps: ApiRequestDeps = {
    http,
    redactText: redactor.redactText,
    onServiceDate: (serviceMs, sentAt, answeredAt) => {
      clockOffsetMs = serviceMs + 500 - (sentAt + answeredAt) / 2;
    },
    clock,
    gate,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    totalDeadlineMs: options.callDeadlineMs ?? DEFAULT_CALL_DEADLINE_MS,
    random: options.random ?? Math.random,
    retry: { ...DEFAULT_RETRY_OPTIONS, ...options.retry },
    ...(onEvent === undefined ? {} : { onEvent }),
  };
  const retryBase = {
    clock: deps.clock,
    random: deps.random,
    options: deps.retry,
    ...(deps.onEvent === undefined ? {} : { onEvent: deps.onEvent }),
  };
  // Issue #32.3: the legacy key (spec 2.5) is known only from a balance answer, and a command that never
  // reads the balance (apply --download-only) printed it from the service's texts. So the balance is
  // read once per connection before any other call; while that read has not succeeded, the service's
  // error texts are withheld (its status and errorCode still map the error).
  let legacyKeyKnown = false;
  let firstBalanceRead: Promise<RawBalance> | undefined;
  deps.withholdTexts = () => !legacyKeyKnown;
  function readBalance(callOptions?: { signal?: AbortSignal }): Promise<RawBalance> {
    return call<RawBalance>(
      { method: 'GET', path: BALANCE_PATH, safety: 'safe', ...signalOf(callOptions) },
      'balance',
      (raw) => {
        // The legacy key is redacted from everything read after it, as the API key is.
        redactor.addSecret((raw as { apiKey?: unknown } | null)?.apiKey);
        legacyKeyKnown = true;
        dropApiKey(raw);
      },
    );
  }
  async function learnLegacyKey(): Promise<void> {
    if (legacyKeyKnown) return;
    firstBalanceRead ??= readBalance();
    await firstBalanceRead.catch(() => undefined);
  }

  async function call<T>(
    call: ApiCall,
    schema: ApiSchemaName,
    prepare?: (data: unknown) => void,
  ): Promise<T> {
    if (call.path !== BALANCE_PATH) await learnLegacyKey();
    let data: unknown;
    try {
      data = await requestApi(deps, call);
    } catch (error) {
      throw explainNotFound(error, options.baseUrl);
    }
    prepare?.(data);
    data = redactor.redactData(data);
    const check = checkSchema<T>(schema, data, 'data');
    if (!check.ok) {
      throw new UnexpectedResponseError(
        { method: call.method, path: call.path },
        { status: 200 },
        check.problem,
      );
    }
    return check.value;
  }

  async function getJob(jobId: string, callOptions?: { signal?: AbortSignal }): Promise<JobRecord> {
    const data = await call<RawJobRecord>(
      {
        method: 'GET',
        path: `/jobs/${encodeURIComponent(jobId)}`,
        safety: 'safe',
        ...signalOf(callOptions),
      },
      'job-record',
      readIdAsJobId,
    );
    return buildJobRecord(data);
  }

  /**
   * The URL to fetch for a result URL the caller holds. One the redactor redacted (it held a key) is
   * fetched by its real form, kept in memory only; in a later process (a resumed run) the job is
   * polled again, which gives the real URL afresh, matched by its redacted form or else by position.
   */
  async function resolveResultUrl(url: string, callOptions: DownloadOptions | undefined): Promise<string> {
    if (!isRedactedUrl(url)) return url;
    const known = redactor.realUrl(url);
    if (known !== undefined) return known;
    if (callOptions?.jobId !== undefined) {
      const record = await getJob(callOptions.jobId, callOptions);
      const fresh =
        redactor.realUrl(url) ??
        (callOptions.resultIndex === undefined ? undefined : record.resultUrls[callOptions.resultIndex]);
      if (fresh !== undefined) return redactor.realUrl(fresh) ?? fresh;
    }
    throw new UnexpectedResponseError(
      { method: 'GET', path: describeUrl(url) },
      {},
      'this result URL held the API key, so only a redacted copy was kept, and the service no longer lists it for the job',
    );
  }

  const client: ServiceClient = {
    async listModels(query, callOptions) {
      return call<Model[]>(
        {
          method: 'GET',
          path: '/models',
          ...(query?.category === undefined ? {} : { query: { category: query.category } }),
          safety: 'safe',
          ...signalOf(callOptions),
        },
        'model-list',
      );
    },

    async getBalance(callOptions) {
      const read =
        firstBalanceRead === undefined
          ? (firstBalanceRead = readBalance(callOptions))
          : readBalance(callOptions);
      return toBalance(await read, { method: 'GET', path: BALANCE_PATH });
    },

    async getSubscription(callOptions) {
      try {
        const data = await call<{ subscription: RawSubscription }>(
          { method: 'GET', path: '/account/subscription', safety: 'safe', ...signalOf(callOptions) },
          'subscription',
        );
        return toSubscription(data.subscription);
      } catch (error) {
        if (error instanceof NotFoundError) return undefined;
        throw error;
      }
    },

    async createJob(request: CreateJobRequest, callOptions) {
      const { endpoint } = request;
      const keyed = request.idempotencyKey !== undefined && endpoint.idempotent;
      const body =
        request.idempotencyKey === undefined
          ? request.body
          : { ...request.body, idempotencyKey: request.idempotencyKey };
      const data = await call<RawJobCreation>(
        {
          method: 'POST',
          path: endpoint.createPath,
          body,
          safety: keyed ? 'safe' : 'unkeyed-create',
          ...(keyed ? { resendWindowMs: deps.retry.idempotencyWindowMs } : {}),
          ...(keyed && request.earlierSendAt !== undefined ? { earlierSendAt: request.earlierSendAt } : {}),
          ...(callOptions?.beforeResend === undefined ? {} : { beforeResend: callOptions.beforeResend }),
          ...signalOf(callOptions),
        },
        'job-creation',
        readIdAsJobId,
      );
      return toJobCreation(data);
    },

    async findRecentJobs(query, callOptions) {
      const path = '/jobs';
      // `since` is read on the service's clock: asked for with a margin, then filtered on ours.
      const since =
        clockOffsetMs === undefined
          ? query.since - UNKNOWN_OFFSET_MARGIN_MS
          : query.since + clockOffsetMs - 60_000;
      await learnLegacyKey();
      let data: unknown;
      try {
        data = await requestApi(deps, {
          method: 'GET',
          path,
          query: { since: new Date(since).toISOString() },
          safety: 'safe',
          ...signalOf(callOptions),
        });
      } catch (error) {
        if (error instanceof NotFoundError) return undefined;
        throw error;
      }
      const listed = readListedJobs(redactor.redactData(data), { method: 'GET', path }, clockOffsetMs ?? 0);
      return listed.filter((job) => job.createdAt === undefined || job.createdAt >= query.since);
    },

    shareRateLimit: (shared) => gate.share(shared),
    serviceClockOffsetMs() {
      return clockOffsetMs;
    },

    getJob,

    async uploadImage(file, callOptions) {
      const presigned = await call<PresignedUpload>(
        {
          method: 'POST',
          path: '/images/presign',
          body: { fileName: file.fileName, contentType: file.contentType },
          // Presigning creates nothing paid: safe to repeat.
          safety: 'safe',
          ...signalOf(callOptions),
        },
        'presign',
      );
      const context: RequestContext = { method: 'PUT', path: describeUrl(presigned.sasUrl) };
      const signal = callOptions?.signal;
      await runWithRetry(
        { ...retryBase, ...context, safety: 'safe', gate, ...(signal === undefined ? {} : { signal }) },
        () =>
          http.send(
            {
              method: 'PUT',
              // A signed link that held a key was redacted on arrival: the PUT needs its real form.
              url: redactor.realUrl(presigned.sasUrl) ?? presigned.sasUrl,
              context,
              headers: { 'x-ms-blob-type': 'BlockBlob', 'content-type': file.contentType },
              body: file.bytes,
              // A presigned URL carries its own authorization; the key must never leave for it.
              apiKey: 'never',
              ...(signal === undefined ? {} : { signal }),
            },
            async (response) => {
              await response.body.dump();
              if (response.status < 200 || response.status >= 300) {
                const retryAfter = readHeader(response, 'retry-after');
                throw createHttpError(context, {
                  status: response.status,
                  ...(retryAfter === undefined ? {} : { retryAfter }),
                });
              }
            },
          ),
      );
      // A public link that held a key stays redacted: it is stored in the upload cache, and a reference
      // the service cannot fetch only makes it refuse the create (spec 4.3 rule 1: nothing is paid).
      return presigned.publicUrl;
    },

    async downloadTo(url, sink, callOptions) {
      const realUrl = await resolveResultUrl(url, callOptions);
      return downloadTo(
        {
          http,
          retry: retryBase,
          timeoutMs: options.downloadTimeoutMs ?? DEFAULT_DOWNLOAD_TIMEOUT_MS,
          maxBytes: options.maxDownloadBytes ?? DEFAULT_MAX_DOWNLOAD_BYTES,
        },
        realUrl,
        sink,
        callOptions?.signal,
      );
    },

    async close() {
      await http.close();
    },
  };
  return redactErrors(client, redactor.redactError);
}

/** The client with every error of every method passed through `redact` (a download's URL, an echo). */
function redactErrors(client: ServiceClient, redact: (error: unknown) => unknown): ServiceClient {
  const guarded: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(client) as [string, (...args: unknown[]) => unknown][]) {
    guarded[name] = (...args: unknown[]) => {
      let result: unknown;
      try {
        result = method(...args);
      } catch (error) {
        throw redact(error);
      }
      return result instanceof Promise
        ? result.catch((error: unknown) => {
            throw redact(error);
          })
        : result;
    };
  }
  return guarded as unknown as ServiceClient;
}

/**
 * A 404 from a base URL without `/api/v2` (spec 9: the version is part of the base path) most likely
 * means the base URL is wrong, not the resource: the hint says so.
 */
function explainNotFound(error: unknown, baseUrl: string): unknown {
  if (!(error instanceof NotFoundError) || /\/api\/v\d+\/*$/.test(baseUrl)) return error;
  const suggestion = `${baseUrl.replace(/\/+$/, '')}/api/v2`;
  const replaced = new NotFoundError(
    { method: error.method, path: error.path },
    {
      ...(error.status === undefined ? {} : { status: error.status }),
      ...(error.errorCode === undefined ? {} : { errorCode: error.errorCode }),
      ...(error.serviceMessage === undefined ? {} : { serviceMessage: error.serviceMessage }),
    },
    `The base URL ${baseUrl} does not end in /api/v2: try --base-url ${suggestion} (or MEDIAGEN_BASE_URL)`,
  );
  replaced.earlierSendMayHaveActed = error.earlierSendMayHaveActed;
  return replaced;
}

function signalOf(options: { signal?: AbortSignal } | undefined): { signal?: AbortSignal } {
  return options?.signal === undefined ? {} : { signal: options.signal };
}

/**
 * A create or poll answer that names the job `id` instead of `jobId` (a shape a public client of the
 * service reads, issue #20.11): the job is paid by then, so refusing the answer would leave it "sent,
 * answer lost". `jobId` wins when both are there; a numeric `id` is read as its decimal text.
 */
function readIdAsJobId(data: unknown): void {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return;
  const record = data as Record<string, unknown>;
  if (record.jobId !== undefined && record.jobId !== null) return;
  const { id } = record;
  if ((typeof id === 'string' && id !== '') || (typeof id === 'number' && Number.isFinite(id))) {
    record.jobId = String(id);
  }
}

/** Spec 2.5: the balance carries the account's key in full. It goes before anything else sees the data. */
function dropApiKey(data: unknown): void {
  if (data !== null && typeof data === 'object' && !Array.isArray(data)) {
    delete (data as Record<string, unknown>).apiKey;
  }
}

/** Spec 2.5 as far as `schemas/api/balance.schema.json` checks it: every field optional. */
type RawBalance = { [K in keyof Balance]?: Balance[K] | null } & { credits?: number | null };

/**
 * The runner needs `availableCredit` only; an older service names it `credits` (api-notes). Without
 * either the balance cannot be checked: that is an error naming the field, never a silent zero.
 */
function toBalance(raw: RawBalance, context: RequestContext): Balance {
  const available = raw.availableCredit ?? raw.credits;
  if (typeof available !== 'number') {
    throw new UnexpectedResponseError(
      context,
      { status: 200 },
      'data.availableCredit: required field is missing (and no older `credits` either)',
    );
  }
  const balance: Balance = { availableCredit: available };
  if (typeof raw.freeCredit === 'number') balance.freeCredit = raw.freeCredit;
  if (typeof raw.purchasedCredit === 'number') balance.purchasedCredit = raw.purchasedCredit;
  if (typeof raw.lockedCredit === 'number') balance.lockedCredit = raw.lockedCredit;
  if (typeof raw.hasPurchased === 'boolean') balance.hasPurchased = raw.hasPurchased;
  if (typeof raw.topupMemo === 'string') balance.topupMemo = raw.topupMemo;
  return balance;
}

interface RawSubscription {
  tier: string;
  maxConcurrentJobs?: number | null;
  quotas?: { capability: string; remaining: number }[] | null;
}

function toSubscription(raw: RawSubscription): Subscription {
  const subscription: Subscription = {
    tier: raw.tier,
    quotas: (raw.quotas ?? []).map((quota) => ({ capability: quota.capability, remaining: quota.remaining })),
  };
  if (typeof raw.maxConcurrentJobs === 'number') subscription.maxConcurrentJobs = raw.maxConcurrentJobs;
  return subscription;
}

type RawJobCreation = { jobId: string; status?: string; chargeSource?: string | null } & Omit<
  Partial<Record<keyof JobCreation, unknown>>,
  'jobId' | 'status' | 'chargeSource'
>;

/** A video endpoint may send only `jobId` (its payload is "not shown"): `status` then stays empty. */
function toJobCreation(raw: RawJobCreation): JobCreation {
  const creation: JobCreation = { jobId: raw.jobId, status: raw.status ?? '' };
  const chargeSource = toChargeSource(raw.chargeSource);
  if (chargeSource !== undefined) creation.chargeSource = chargeSource;
  readReportedCost(raw.creditCost, creation);
  if (typeof raw.quotaRemaining === 'number' || raw.quotaRemaining === null) {
    creation.quotaRemaining = raw.quotaRemaining;
  }
  if (typeof raw.queuePosition === 'number') creation.queuePosition = raw.queuePosition;
  if (typeof raw.queueDepth === 'number') creation.queueDepth = raw.queueDepth;
  if (typeof raw.runningJobs === 'number') creation.runningJobs = raw.runningJobs;
  if (typeof raw.concurrency === 'number') creation.concurrency = raw.concurrency;
  if (typeof raw.capReason === 'string') creation.capReason = capText(raw.capReason, 200);
  if (typeof raw.runningOnFallback === 'boolean' || raw.runningOnFallback === null) {
    creation.runningOnFallback = raw.runningOnFallback;
  }
  return creation;
}

/** A listing asked for before any answer showed the service's clock reaches a day further back. */
const UNKNOWN_OFFSET_MARGIN_MS = 24 * 3600 * 1000;

/**
 * A listing is read loosely (its shape is not in the spec) but never silently: a non-list is refused.
 * `createdAt` is moved from the service's clock to ours by `offsetMs` (service minus local).
 */
function readListedJobs(data: unknown, context: RequestContext, offsetMs: number): ListedJob[] {
  const items = Array.isArray(data)
    ? (data as unknown[])
    : Array.isArray((data as { jobs?: unknown } | null)?.jobs)
      ? (data as { jobs: unknown[] }).jobs
      : undefined;
  if (items === undefined) {
    throw new UnexpectedResponseError(context, { status: 200 }, 'data: expected a list of jobs');
  }
  const jobs: ListedJob[] = [];
  for (const item of items) {
    if (typeof item !== 'object' || item === null) continue;
    const raw = item as Record<string, unknown>;
    readIdAsJobId(raw);
    if (typeof raw.jobId !== 'string' || raw.jobId === '') continue;
    const job: ListedJob = { jobId: raw.jobId };
    if (typeof raw.model === 'string') job.model = raw.model;
    if (typeof raw.prompt === 'string') job.prompt = raw.prompt;
    const created = typeof raw.createdAt === 'number' ? raw.createdAt : Date.parse(String(raw.createdAt));
    if (Number.isFinite(created)) job.createdAt = created - offsetMs;
    if (raw.payload !== null && typeof raw.payload === 'object' && !Array.isArray(raw.payload))
      job.payload = raw.payload as Record<string, unknown>;
    jobs.push(job);
  }
  return jobs;
}
