import { computeAvailableCredit } from './accounting.js';
import type { SimulatorCore } from './core.js';
import { handleCreate, type CreateEndpoint } from './create-job.js';
import { shapeBalance, shapeJobRecord, shapeModels, shapeSubscription } from './dialect.js';
import { answerData, answerError, isPlainObject, type Answer } from './http-util.js';
import { resultPathPrefix } from './echo-key.js';
import { describeJob, reportStatus } from './jobs.js';

/** What a route handler gets: path parameters, the parsed JSON body (if any) and the URL. */
export interface RouteContext {
  params: string[];
  body: unknown;
  url: URL;
}

export interface ApiRoute {
  method: 'GET' | 'POST';
  /** `METHOD template` is the key of `stats().requests`. */
  template: string;
  pattern: RegExp;
  /** Creates a job: a fault may hit after processing (the answer is lost, the job exists). */
  isCreate: boolean;
  handle(core: SimulatorCore, context: RouteContext): Answer;
}

function listModels(core: SimulatorCore, { url }: RouteContext): Answer {
  const category = url.searchParams.get('category');
  // An unknown category is not an error: it simply matches no model.
  const models = category === null ? core.catalog : core.catalog.filter((m) => m.category === category);
  return answerData(shapeModels(structuredClone(models), core.options.dialect));
}

function getBalance(core: SimulatorCore): Answer {
  core.engine.advance(core.now());
  const { account, options } = core;
  const full = {
    freeCredit: account.freeCredit,
    purchasedCredit: account.purchasedCredit,
    lockedCredit: account.lockedCredit,
    availableCredit: computeAvailableCredit(account),
    hasPurchased: account.hasPurchased,
    // Spec 2.5: the legacy key comes back in full; clients must strip it.
    apiKey: options.legacyApiKey,
    topupMemo: `SIM${options.seed}TOPUP`,
  };
  return answerData(shapeBalance(full, options.dialect));
}

function getSubscription(core: SimulatorCore): Answer {
  core.engine.advance(core.now());
  const { options } = core;
  const full = {
    tier: options.subscriptionTier,
    maxConcurrentJobs: options.concurrencyLimit,
    quotas: [{ capability: 'image', remaining: core.account.subscriptionImageQuota }],
  };
  const shaped = shapeSubscription(full, options.dialect, options.imageModelSlug);
  return shaped === undefined
    ? answerError(404, 'no such endpoint: GET /api/v2/account/subscription', 'NOT_FOUND')
    : answerData(shaped);
}

function getJob(core: SimulatorCore, { params }: RouteContext): Answer {
  const now = core.now();
  core.engine.advance(now);
  const jobId = decodeURIComponent(params[0] ?? '');
  const job = core.engine.get(jobId);
  if (job === undefined) return answerError(404, `job '${jobId}' not found`, 'JOB_NOT_FOUND');
  core.counters.pollsPerJob[jobId] = (core.counters.pollsPerJob[jobId] ?? 0) + 1;
  return answerData(
    shapeJobRecord(
      describeJob(job, now, `${core.origin}${resultPathPrefix(core)}`),
      core.options.dialect,
      core.options.hostile,
    ),
  );
}

/** `GET /jobs?since=ISO`, only with the `jobListing` option; otherwise 404 like an unknown endpoint. */
function listJobs(core: SimulatorCore, { url }: RouteContext): Answer {
  if (!core.options.jobListing) return answerError(404, 'no such endpoint: GET /api/v2/jobs', 'NOT_FOUND');
  const now = core.now();
  core.engine.advance(now);
  // Times on the service's own clock, which may be off (`clockOffsetMs`).
  const offset = core.options.clockOffsetMs;
  const since = Date.parse(url.searchParams.get('since') ?? '');
  const jobs = core.engine
    .all()
    .filter((job) => !Number.isFinite(since) || job.createdAt + offset >= since)
    .map((job) => ({
      [core.options.dialect.jobIdField ?? 'jobId']: job.jobId,
      kind: job.kind,
      model: job.model,
      prompt: job.prompt ?? null,
      payload: job.payload ?? null,
      status: reportStatus(job),
      createdAt: new Date(job.createdAt + offset).toISOString(),
    }));
  return answerData(jobs);
}

function presignUpload(core: SimulatorCore, { body }: RouteContext): Answer {
  if (!isPlainObject(body) || typeof body.fileName !== 'string' || body.fileName === '') {
    return answerError(400, 'fileName is required', 'VALIDATION_ERROR');
  }
  if (typeof body.contentType !== 'string' || body.contentType === '') {
    return answerError(400, 'contentType is required', 'VALIDATION_ERROR');
  }
  return answerData(core.uploads.presign(body.fileName, body.contentType, core.origin));
}

function createRoute(path: string, endpoint: CreateEndpoint): ApiRoute {
  return {
    method: 'POST',
    template: path,
    pattern: new RegExp(`^${path.replace(/[/.]/g, '\\$&')}$`),
    isCreate: true,
    handle: (core, { body }) => handleCreate(core, endpoint, body),
  };
}

/** Every route under `/api/v2` (spec 4, api-notes). */
export const API_ROUTES: ApiRoute[] = [
  { method: 'GET', template: '/models', pattern: /^\/models$/, isCreate: false, handle: listModels },
  {
    method: 'GET',
    template: '/account/balance',
    pattern: /^\/account\/balance$/,
    isCreate: false,
    handle: getBalance,
  },
  {
    method: 'GET',
    template: '/account/subscription',
    pattern: /^\/account\/subscription$/,
    isCreate: false,
    handle: getSubscription,
  },
  { method: 'GET', template: '/jobs', pattern: /^\/jobs$/, isCreate: false, handle: listJobs },
  { method: 'GET', template: '/jobs/{jobId}', pattern: /^\/jobs\/([^/]+)$/, isCreate: false, handle: getJob },
  {
    method: 'POST',
    template: '/images/presign',
    pattern: /^\/images\/presign$/,
    isCreate: false,
    handle: presignUpload,
  },
  createRoute('/agents/jobs/create', { kind: 'image', category: 'image' }),
  createRoute('/render/video', { kind: 'render-video', category: 'render' }),
  createRoute('/voiceover-videos/create', { kind: 'voiceover-video', category: 'voiceovervideo' }),
  createRoute('/stock-videos/create', { kind: 'stock-video', category: 'stockvideo' }),
  createRoute('/slideshow-videos/create', { kind: 'slideshow-video', category: 'slideshowvideo' }),
  createRoute('/article-videos/create', { kind: 'article-video', category: 'articlevideo' }),
];

/** The route for `method` and `path` (relative to `/api/v2`), with its captured parameters. */
export function matchRoute(method: string, path: string): { route: ApiRoute; params: string[] } | undefined {
  for (const route of API_ROUTES) {
    if (route.method !== method) continue;
    const match = route.pattern.exec(path);
    if (match) return { route, params: match.slice(1) };
  }
  return undefined;
}
