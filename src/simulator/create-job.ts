import type { Model, ModelCategory } from '../service/types.js';
import { computeAvailableCredit, lockCredits, takeImageQuota } from './accounting.js';
import { computeCreditCost } from './catalog.js';
import type { SimulatorCore } from './core.js';
import { resolveOwnFile } from './files.js';
import { shapeCreation } from './dialect.js';
import { answerData, answerError, isPlainObject, type Answer } from './http-util.js';
import type { SimJob } from './jobs.js';
import { decideOutcome, findRunningStatus } from './outcomes.js';
import { collectReferenceLinks, validateImageBody, validateModelParams } from './validation.js';

/** One creation endpoint of spec 4.3 / 4.5. */
export interface CreateEndpoint {
  /** The job kind recorded in stats (the runner's kind names). */
  kind: string;
  category: ModelCategory;
}

function describeCreation(core: SimulatorCore, job: SimJob): Record<string, unknown> {
  return shapeCreation(describeFullCreation(core, job), core.options.dialect);
}

function describeFullCreation(core: SimulatorCore, job: SimJob): Record<string, unknown> {
  return {
    jobId: job.jobId,
    status: 'WaitingForAgent',
    chargeSource: job.chargeSource,
    creditCost: job.creditCost,
    quotaRemaining: job.quotaRemaining,
    ...core.engine.figuresFor(job),
    concurrency: core.options.concurrencyLimit,
    capReason: 'plan limit',
    runningOnFallback: null,
  };
}

/**
 * Spec 4.3 rule 1, made deterministic and offline: a host containing `unreachable` or `blocked` cannot
 * be fetched, and neither can a link to this server that serves nothing. Any other host can.
 */
export function isFetchable(core: SimulatorCore, link: string): boolean {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return false;
  }
  const host = url.hostname.toLowerCase();
  if (host.includes('unreachable') || host.includes('blocked')) return false;
  const own = new URL(core.origin);
  const isOwnHost = host === '127.0.0.1' || host === 'localhost';
  if (isOwnHost && url.port === own.port) return resolveOwnFile(core, url.pathname) !== undefined;
  return true;
}

function findModel(core: SimulatorCore, endpoint: CreateEndpoint, slug: unknown): Model | string {
  if (typeof slug !== 'string' || slug === '') return 'model is required';
  if (endpoint.category === 'image') {
    const imageSlug = core.options.imageModelSlug;
    const model = core.catalog.find((m) => m.slug === imageSlug);
    return slug === imageSlug && model ? model : `model must be '${imageSlug}', got '${slug}'`;
  }
  const model = core.catalog.find((m) => m.slug === slug);
  if (model === undefined) return `unknown model '${slug}'`;
  if (model.category !== endpoint.category) {
    return `model '${slug}' is a ${model.category} model; this endpoint takes ${endpoint.category} models`;
  }
  return model;
}

/** Handles a creation request end to end: replay, validation, references, queue cap, charging. */
export function handleCreate(core: SimulatorCore, endpoint: CreateEndpoint, body: unknown): Answer {
  if (!isPlainObject(body)) return answerError(400, 'body must be a JSON object', 'INVALID_REQUEST');
  const now = core.now();
  core.engine.advance(now);
  const key = body.idempotencyKey;
  if (key !== undefined && (typeof key !== 'string' || key === '')) {
    return answerError(400, 'idempotencyKey must be a non-empty string', 'INVALID_REQUEST');
  }
  const replayId = key === undefined ? undefined : core.idempotency.lookup(key, now);
  const replayed = replayId === undefined ? undefined : core.engine.get(replayId);
  if (replayed !== undefined) {
    core.counters.idempotentReplays += 1;
    return answerData(describeCreation(core, replayed), { withErrorCode: true });
  }

  const model = findModel(core, endpoint, body.model);
  if (typeof model === 'string') return answerError(400, model, 'INVALID_MODEL');
  const isImage = endpoint.category === 'image';
  if (body.prompt !== undefined && typeof body.prompt !== 'string') {
    return answerError(400, 'prompt must be a string', 'VALIDATION_ERROR');
  }
  const issues = isImage ? validateImageBody(model, body) : validateModelParams(model, body);
  if (issues.length > 0) return answerError(400, issues.join('; '), 'VALIDATION_ERROR');
  const unreachable = collectReferenceLinks(model, body).find((link) => !isFetchable(core, link));
  if (unreachable !== undefined) {
    return answerError(400, `reference image could not be fetched: ${unreachable}`, 'REFERENCE_UNREACHABLE');
  }

  const { engine, options } = core;
  const wouldQueue = engine.queueDepth() > 0 || engine.runningCount() >= options.concurrencyLimit;
  if (wouldQueue && engine.queueDepth() >= options.maxQueueDepth) {
    // Some clients meet AGENT_QUEUE_FULL as HTTP 200 `success:false`, without Retry-After (api-notes).
    if (options.dialect.queueFull === 'http-200')
      return answerError(200, 'the job queue is full; retry later', 'AGENT_QUEUE_FULL');
    return answerError(429, 'the job queue is full; retry later', 'AGENT_QUEUE_FULL', {
      'retry-after': String(options.queueFullRetryAfterSeconds),
    });
  }

  const fullCost = computeCreditCost(model, body);
  let quotaRemaining = isImage ? takeImageQuota(core.account) : null;
  const chargeSource = quotaRemaining === null ? 'Credit' : 'Subscription';
  const creditCost = chargeSource === 'Credit' ? fullCost : 0;
  if (chargeSource === 'Credit' && !lockCredits(core.account, creditCost)) {
    const available = computeAvailableCredit(core.account);
    return answerError(
      402,
      `insufficient credits: the job costs ${creditCost}, available ${available}`,
      'INSUFFICIENT_CREDITS',
    );
  }
  if (chargeSource === 'Subscription') core.counters.subscriptionJobs += 1;
  else quotaRemaining = null;
  core.counters.creditsCharged += creditCost;
  core.counters.jobsCreated += 1;

  const jobId = core.nextJobId();
  const prompt = typeof body.prompt === 'string' ? body.prompt : undefined;
  const generation = prompt === undefined ? 0 : (core.seenPrompts.get(prompt) ?? 0);
  const promptSeenBefore = generation > 0;
  if (prompt !== undefined) core.seenPrompts.set(prompt, generation + 1);
  const runningStatus = findRunningStatus(prompt);
  const job: SimJob = {
    jobId,
    kind: endpoint.kind,
    model: model.slug,
    prompt,
    ...(generation > 0 ? { generation } : {}),
    payload: Object.fromEntries(Object.entries(body).filter(([field]) => field !== 'idempotencyKey')),
    resultExt: isImage ? (body.format === 'jpeg' ? 'jpeg' : 'png') : 'mp4',
    ...(typeof body.aspectRatio === 'string' ? { aspectRatio: body.aspectRatio } : {}),
    ...(key === undefined ? {} : { idempotencyKey: key }),
    creditCost,
    chargeSource,
    quotaRemaining,
    createdAt: now,
    durationMs: isImage ? options.imageDurationMs : options.videoDurationMs,
    outcome: decideOutcome({
      jobId,
      seed: options.seed,
      isImage,
      prompt,
      requireTransparent: body.requireTransparent === true,
      promptSeenBefore,
    }),
    ...(runningStatus === undefined ? {} : { runningStatus }),
    state: 'queued',
  };
  engine.add(job, now);
  if (key !== undefined) core.idempotency.remember(key, jobId, now);
  return answerData(describeCreation(core, job), { withErrorCode: true });
}
