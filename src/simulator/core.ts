import {
  createAccount,
  releaseCredits,
  restoreImageQuota,
  settleCredits,
  type AccountState,
} from './accounting.js';
import type { Model } from '../service/types.js';
import { buildCatalog } from './catalog.js';
import { createFaultInjector, type FaultInjector } from './faults.js';
import { createIdempotencyStore, type IdempotencyStore } from './idempotency.js';
import { createJobEngine, reportStatus, type JobEngine } from './jobs.js';
import { createRandom, randomHex, type Random } from './random.js';
import type { Dialect, HostileOptions, SimulatorOptions, SimulatorStats } from './types.js';
import { createUploadStore, type UploadStore } from './uploads.js';

/** Options with every default filled in. */
export interface ResolvedOptions {
  timeScale: number;
  seed: number;
  apiKey: string;
  legacyApiKey: string;
  imageModelSlug: string;
  secondImageModel?: string;
  imageDurationMs: number;
  videoDurationMs: number;
  idempotencyWindowMs: number;
  concurrencyLimit: number;
  maxQueueDepth: number;
  queueFullRetryAfterSeconds: number;
  retryAfterSeconds: number;
  subscriptionTier: string;
  dialect: Dialect;
  hostile: HostileOptions;
  jobListing: boolean;
  echoApiKey: boolean | 'every-encoding';
  clockOffsetMs: number;
}

/** Everything the routes share: the account, the jobs, the stores and the counters. */
export interface SimulatorCore {
  options: ResolvedOptions;
  now(): number;
  /** `http://127.0.0.1:PORT`, set once the server listens. */
  origin: string;
  apiKeyRevoked: boolean;
  account: AccountState;
  catalog: Model[];
  engine: JobEngine;
  idempotency: IdempotencyStore;
  uploads: UploadStore;
  faults: FaultInjector;
  /** Prompts of every job created so far (for `[[fail-once:KIND]]`). */
  /** How many jobs were created with each prompt: a regenerated prompt is drawn anew. */
  seenPrompts: Map<string, number>;
  random: Random;
  nextJobId(): string;
  /**
   * Left of {@link Simulator.rateLimitNext}: answers still to refuse with 429, their `Retry-After`, and
   * whether only create requests are refused (the others pass untouched).
   */
  rateLimit: { remaining: number; retryAfterSeconds: number; createsOnly?: boolean };
  /** The latest `Retry-After` window a 429 opened (epoch ms): requests arriving in it are counted. */
  retryAfterWindow?: { openedAt: number; until: number };
  /** Of {@link Simulator.holdCreates}: while set, create requests wait for it before being processed. */
  createHold?: { released: Promise<void>; held: number };
  counters: Omit<SimulatorStats, 'maxRunningAtOnce' | 'maxOpenAtOnce' | 'jobs' | 'account'>;
}

export function resolveOptions(options: SimulatorOptions): ResolvedOptions {
  const timeScale = options.timeScale ?? 1;
  const seed = options.seed ?? 1;
  return {
    timeScale,
    seed,
    apiKey: options.apiKey ?? 'sim-key-0000',
    legacyApiKey: options.legacyApiKey ?? `legacy-${randomHex(createRandom(seed ^ 0x1e9ac7), 24)}`,
    imageModelSlug: options.imageModelSlug ?? 'chatgpt-image-sangtao',
    ...(options.secondImageModel === undefined ? {} : { secondImageModel: options.secondImageModel }),
    imageDurationMs: (options.jobDurationMs?.image ?? 45_000) * timeScale,
    videoDurationMs: (options.jobDurationMs?.video ?? 120_000) * timeScale,
    idempotencyWindowMs: (options.idempotencyWindowMs ?? 300_000) * timeScale,
    concurrencyLimit: options.concurrencyLimit ?? 4,
    maxQueueDepth: options.maxQueueDepth ?? Number.POSITIVE_INFINITY,
    queueFullRetryAfterSeconds: options.queueFullRetryAfterSeconds ?? Math.max(1, Math.ceil(60 * timeScale)),
    retryAfterSeconds: options.faults?.retryAfterSeconds ?? 1,
    subscriptionTier: options.subscriptionTier ?? 'Pro',
    dialect: options.dialect ?? {},
    hostile: options.hostile ?? {},
    jobListing: options.jobListing ?? false,
    echoApiKey: options.echoApiKey ?? false,
    clockOffsetMs: options.clockOffsetMs ?? 0,
  };
}

export function createSimulatorCore(input: SimulatorOptions): SimulatorCore {
  const options = resolveOptions(input);
  const random = createRandom(options.seed);
  const account = createAccount(input.account);
  let jobCounter = 0;
  let uploadCounter = 0;
  const counters: SimulatorCore['counters'] = {
    jobsCreated: 0,
    idempotentReplays: 0,
    creditsCharged: 0,
    subscriptionJobs: 0,
    pollsPerJob: {},
    requests: {},
    faultsInjected: { serverError: 0, rateLimit: 0, reset: 0, slow: 0 },
    rateLimitedOnDemand: 0,
    requestsInsideRetryAfter: 0,
    insideRetryAfterMs: [],
    resultRequestsWithKey: 0,
  };
  const engine = createJobEngine({
    concurrencyLimit: options.concurrencyLimit,
    onFinish(job) {
      if (job.outcome.type === 'complete') {
        if (job.chargeSource === 'Credit') settleCredits(account, job.creditCost);
        return;
      }
      // api-notes: failed jobs are not charged; locked credits (or the plan's image) go back.
      if (job.chargeSource === 'Credit') {
        releaseCredits(account, job.creditCost);
        counters.creditsCharged -= job.creditCost;
      } else {
        restoreImageQuota(account);
      }
    },
  });
  return {
    options,
    now: () => input.clock?.now() ?? Date.now(),
    origin: '',
    apiKeyRevoked: false,
    account,
    catalog: buildCatalog(options.imageModelSlug, options.secondImageModel),
    engine,
    idempotency: createIdempotencyStore(options.idempotencyWindowMs),
    uploads: createUploadStore(
      `sim-${options.seed}`,
      () => `up${String(++uploadCounter).padStart(4, '0')}${randomHex(random, 8)}`,
    ),
    faults: createFaultInjector(options.seed, input.faults),
    seenPrompts: new Map(),
    random,
    rateLimit: { remaining: 0, retryAfterSeconds: 1 },
    nextJobId: () => `job_${String(++jobCounter).padStart(5, '0')}_${randomHex(random, 10)}`,
    counters,
  };
}

/** The stats snapshot at the core's current time. */
export function collectStats(core: SimulatorCore): SimulatorStats {
  core.engine.advance(core.now());
  const { account } = core;
  return {
    ...structuredClone(core.counters),
    maxRunningAtOnce: core.engine.maxRunningAtOnce(),
    maxOpenAtOnce: core.engine.maxOpenAtOnce(),
    jobs: core.engine.all().map((job) => ({
      jobId: job.jobId,
      kind: job.kind,
      model: job.model,
      status: reportStatus(job),
      ...(job.idempotencyKey === undefined ? {} : { idempotencyKey: job.idempotencyKey }),
      creditCost: job.creditCost,
      chargeSource: job.chargeSource,
      createdAt: job.createdAt,
    })),
    account: {
      freeCredit: account.freeCredit,
      purchasedCredit: account.purchasedCredit,
      lockedCredit: account.lockedCredit,
      subscriptionImageQuota: account.subscriptionImageQuota,
    },
  };
}
