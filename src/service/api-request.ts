/**
 * One JSON call to the service's API: send (with retries), read the envelope (spec 2.1), map failures
 * to typed errors, and hand back the envelope's `data` still unchecked (the caller checks it against
 * the endpoint's schema, after dropping secrets such as the balance's `apiKey`).
 */
import type { Clock } from '../clock.js';
import { capText } from './cap-text.js';
import {
  createHttpError,
  NetworkError,
  UnexpectedResponseError,
  type RequestContext,
  type ServiceAnswer,
} from './errors.js';
import { readHeader, readTextCapped, type Http, type HttpResponse } from './http.js';
import type { RateLimitGate } from './rate-limit-gate.js';
import { runWithRetry } from './retry-loop.js';
import type { RetryOptions, RetrySafety } from './retry-policy.js';
import { checkSchema } from './schemas.js';
import type { ClientEvent } from './client-event.js';

export interface ApiRequestDeps {
  http: Http;
  /** Takes the account's keys out of a service text, in every form (see `createSecretRedactor`). */
  redactText: (text: string) => string;
  /**
   * Whether the service's own error texts are left out of errors (issue #32.3): while the legacy key is
   * not known yet, they could carry it unredacted. The status and `errorCode` still map the error.
   */
  withholdTexts?: () => boolean;
  clock: Clock;
  random: () => number;
  retry: RetryOptions;
  onEvent?: (event: ClientEvent) => void;
  /**
   * Told of every answer's `Date` header (the service's clock, in ms) with the local times the request
   * was sent and answered, to measure the clock offset (issue #24.8).
   */
  onServiceDate?: (serviceMs: number, sentAt: number, answeredAt: number) => void;
  /** Shared by every request of the client: a 429 pauses them all. */
  gate?: RateLimitGate;
  /** Largest JSON answer read; a larger one is an error. */
  maxResponseBytes: number;
  /**
   * Total deadline of one safe call (reads, presign), retries and pauses included. Creates have none:
   * their re-sends are bounded by the idempotency window, and cutting one short would leave it ambiguous.
   */
  totalDeadlineMs?: number;
}

export interface ApiCall {
  method: 'GET' | 'POST';
  /** Relative to the base URL, e.g. `/jobs/abc`. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  safety: RetrySafety;
  signal?: AbortSignal;
  /** A keyed create: how long after the first send a re-send stays covered by its key. */
  resendWindowMs?: number;
  /** An earlier send of the same keyed create that may have reached the service, if any. */
  earlierSendAt?: number;
  /** A create's check before each re-send (`RetryContext.beforeResend`). */
  beforeResend?: () => Promise<boolean>;
}

/** Returns the envelope's `data` of a successful answer; throws a {@link ServiceError} subclass otherwise. */
export async function requestApi(deps: ApiRequestDeps, call: ApiCall): Promise<unknown> {
  const context: RequestContext = { method: call.method, path: call.path };
  const url = deps.http.resolveApiUrl(call.path, call.query);
  const headers: Record<string, string> = { accept: 'application/json' };
  let body: string | undefined;
  if (call.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(call.body);
  }
  const isCreate = call.safety === 'unkeyed-create' || call.resendWindowMs !== undefined;
  const deadline =
    deps.totalDeadlineMs === undefined || isCreate ? undefined : AbortSignal.timeout(deps.totalDeadlineMs);
  const signal =
    deadline === undefined
      ? call.signal
      : call.signal === undefined
        ? deadline
        : AbortSignal.any([call.signal, deadline]);
  try {
    return await sendWithRetry(deps, call, context, url, headers, body, signal);
  } catch (error) {
    if (deadline?.aborted === true && call.signal?.aborted !== true) {
      throw new NetworkError(
        context,
        'timeout',
        `no usable answer within ${deps.totalDeadlineMs ?? 0} ms, retries included`,
      );
    }
    throw error;
  }
}

function sendWithRetry(
  deps: ApiRequestDeps,
  call: ApiCall,
  context: RequestContext,
  url: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  const retryContext = {
    method: call.method,
    path: call.path,
    safety: call.safety,
    clock: deps.clock,
    random: deps.random,
    options: deps.retry,
    ...(deps.onEvent === undefined ? {} : { onEvent: deps.onEvent }),
    ...(deps.gate === undefined ? {} : { gate: deps.gate }),
    ...(signal === undefined ? {} : { signal }),
    ...(call.resendWindowMs === undefined ? {} : { resendWindowMs: call.resendWindowMs }),
    ...(call.earlierSendAt === undefined ? {} : { earlierSendAt: call.earlierSendAt }),
    ...(call.beforeResend === undefined ? {} : { beforeResend: call.beforeResend }),
  };
  return runWithRetry(retryContext, () => {
    const startedAt = deps.clock.now();
    return deps.http.send(
      {
        method: call.method,
        url,
        context,
        headers,
        ...(body === undefined ? {} : { body }),
        apiKey: 'same-origin',
        ...(signal === undefined ? {} : { signal }),
      },
      async (response) => {
        const text = await readTextCapped(response, deps.maxResponseBytes, context);
        const serviceMs = Date.parse(readHeader(response, 'date') ?? '');
        if (Number.isFinite(serviceMs)) deps.onServiceDate?.(serviceMs, startedAt, deps.clock.now());
        deps.onEvent?.({
          type: 'request',
          method: call.method,
          path: call.path,
          status: response.status,
          durationMs: deps.clock.now() - startedAt,
        });
        const withhold = deps.withholdTexts?.() === true;
        return readEnvelope(response, text, context, deps.redactText, withhold);
      },
    );
  });
}

function readEnvelope(
  response: HttpResponse,
  text: string,
  context: RequestContext,
  redactText: (text: string) => string,
  withhold: boolean,
): unknown {
  const ok = response.status >= 200 && response.status < 300;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    if (ok) {
      throw new UnexpectedResponseError(
        context,
        { status: response.status },
        'expected a JSON body, received text',
      );
    }
    parsed = undefined;
  }
  const answer = readAnswer(response, parsed, redactText, withhold);
  if (!ok) throw createHttpError(context, answer);

  const check = checkSchema<{ success: boolean; data?: unknown }>('envelope', parsed, 'body');
  if (!check.ok) throw new UnexpectedResponseError(context, answer, check.problem);
  if (!check.value.success) throw createHttpError(context, answer);
  return check.value.data;
}

/** A service message is quoted in errors; a whole HTML page is not (see also `capText`). */
const MAX_MESSAGE_LENGTH = 500;

/**
 * The envelope's error fields read leniently: an error page without JSON still maps by status. With
 * `withhold`, the service's text is left out (its keys are not all known yet).
 */
function readAnswer(
  response: HttpResponse,
  parsed: unknown,
  redactText: (text: string) => string,
  withhold: boolean,
): ServiceAnswer {
  const answer: ServiceAnswer = { status: response.status };
  const retryAfter = readHeader(response, 'retry-after');
  if (retryAfter !== undefined) answer.retryAfter = retryAfter;
  if (parsed !== null && typeof parsed === 'object') {
    const { error, errorCode } = parsed as { error?: unknown; errorCode?: unknown };
    // A code is not prose: kept even while texts are withheld (it maps AGENT_QUEUE_FULL).
    if (typeof errorCode === 'string' && errorCode !== '')
      answer.errorCode = capText(redactText(errorCode), 200);
    if (typeof error === 'string' && error !== '' && !withhold) {
      // Before capping: a cap in the middle of a key would leave part of it.
      const scrubbed = redactText(error);
      answer.serviceMessage = capText(scrubbed, MAX_MESSAGE_LENGTH);
    }
  }
  return answer;
}
