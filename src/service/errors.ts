/**
 * One error class per edge of the HTTP client. Every message names the method and the path (never the
 * query string, which may hold a signed token) and never contains the API key or any request header.
 */
import { RunnerError, type ErrorCode } from '../errors.js';

/** Where a request failed. `path` is relative to the base URL for API calls, `host/path` for others. */
export interface RequestContext {
  method: string;
  path: string;
}

/** What the service said, as far as it said anything. */
export interface ServiceAnswer {
  status?: number;
  /** The envelope's `errorCode`. */
  errorCode?: string;
  /** The envelope's `error`, with the API key scrubbed out. */
  serviceMessage?: string;
  /** The raw `Retry-After` header, for the retry policy. */
  retryAfter?: string;
}

/** The base of every error the client throws. */
export class ServiceError extends RunnerError {
  readonly method: string;
  readonly path: string;
  readonly status: number | undefined;
  readonly errorCode: string | undefined;
  readonly serviceMessage: string | undefined;
  readonly retryAfter: string | undefined;
  /**
   * Set by the retry loop when an EARLIER send of the same request got no usable answer (a 5xx, a
   * reset, a timeout): the service may have acted on it, so this error, even a refusal such as 429 or
   * 402, does not prove that nothing was done.
   */
  earlierSendMayHaveActed = false;

  constructor(
    code: ErrorCode,
    context: RequestContext,
    answer: ServiceAnswer,
    message: string,
    options?: { hint?: string; cause?: unknown },
  ) {
    super(code, message, options);
    this.method = context.method;
    this.path = context.path;
    this.status = answer.status;
    this.errorCode = answer.errorCode;
    this.serviceMessage = answer.serviceMessage;
    this.retryAfter = answer.retryAfter;
  }
}

const STATUS_LABELS: Record<number, string> = {
  400: 'Validation error',
  401: 'Unauthorized',
  402: 'Insufficient credits',
  403: 'Forbidden',
  404: 'Not found',
  408: 'Request timeout',
  429: 'Rate limited',
};

/** `POST /agents/jobs/create failed: HTTP 402 Insufficient credits (errorCode X): "message"`. */
export function formatHttpFailure(context: RequestContext, answer: ServiceAnswer): string {
  const status = answer.status ?? 0;
  const label = STATUS_LABELS[status] ?? (status >= 500 ? 'Server error' : 'Unexpected status');
  let message = `${context.method} ${context.path} failed: HTTP ${status} ${label}`;
  if (answer.errorCode !== undefined) message += ` (errorCode ${answer.errorCode})`;
  if (answer.serviceMessage !== undefined && answer.serviceMessage !== '') {
    message += `: "${answer.serviceMessage}"`;
  }
  return message;
}

/** HTTP 401/403: the key is missing, wrong or revoked. */
export class AuthenticationError extends ServiceError {
  constructor(context: RequestContext, answer: ServiceAnswer) {
    super('AUTHENTICATION', context, answer, formatHttpFailure(context, answer), {
      hint: 'Check the API key (MEDIAGEN_API_KEY or --api-key-file) and that it belongs to this --base-url',
    });
  }
}

/** HTTP 402. */
export class InsufficientCreditsError extends ServiceError {
  constructor(context: RequestContext, answer: ServiceAnswer) {
    super('INSUFFICIENT_CREDITS', context, answer, formatHttpFailure(context, answer), {
      hint: 'Top up before retrying (`runner plan` shows what the manifest costs)',
    });
  }
}

/** HTTP 404. */
export class NotFoundError extends ServiceError {
  constructor(context: RequestContext, answer: ServiceAnswer, hint?: string) {
    super('NOT_FOUND', context, answer, formatHttpFailure(context, answer), {
      hint: hint ?? 'Check the base URL and the resource id (results are deleted after 7 days)',
    });
  }
}

/** HTTP 400 (and other 4xx the spec does not name). */
export class ServiceValidationError extends ServiceError {
  constructor(context: RequestContext, answer: ServiceAnswer) {
    super('SERVICE_VALIDATION', context, answer, formatHttpFailure(context, answer), {
      hint: "Fix the request per the service's message",
    });
  }
}

/** HTTP 429 or `errorCode` `AGENT_QUEUE_FULL`, once the retries are spent. */
export class RateLimitedError extends ServiceError {
  constructor(context: RequestContext, answer: ServiceAnswer) {
    super('RATE_LIMITED', context, answer, formatHttpFailure(context, answer), {
      hint: 'The service is busy; wait a few minutes and run again (finished jobs are kept)',
    });
  }
}

/** HTTP 5xx, once the retries are spent (or at once for a create that cannot be safely re-sent). */
export class ServerError extends ServiceError {
  constructor(context: RequestContext, answer: ServiceAnswer) {
    super('SERVER_ERROR', context, answer, formatHttpFailure(context, answer), {
      hint: 'Retry after a short delay; contact support if it persists',
    });
  }
}

/**
 * How a request failed without an answer. `connect` proves nothing reached the service (refused, DNS,
 * connect timeout); `reset` and `timeout` are ambiguous: the service may have acted on the request.
 */
export type NetworkFailure = 'connect' | 'reset' | 'timeout' | 'other';

const NETWORK_LABELS: Record<NetworkFailure, string> = {
  connect: 'could not connect',
  reset: 'connection closed before an answer',
  timeout: 'no answer in time',
  other: 'network error',
};

/** Connection refused or reset, DNS failure, request timeout. */
export class NetworkError extends ServiceError {
  readonly failure: NetworkFailure;
  /** The system or undici error code (`ECONNREFUSED`, `UND_ERR_SOCKET`...), when known. */
  readonly causeCode: string | undefined;

  constructor(context: RequestContext, failure: NetworkFailure, detail: string, causeCode?: string) {
    const codePart = causeCode === undefined ? '' : ` (${causeCode})`;
    super(
      'NETWORK',
      context,
      {},
      `${context.method} ${context.path} failed: ${NETWORK_LABELS[failure]}${codePart}: ${detail}`,
      { hint: 'Check the network connection and --base-url / MEDIAGEN_BASE_URL' },
    );
    this.failure = failure;
    this.causeCode = causeCode;
  }
}

/** The service answered, but not in the shape the runner relies on. */
export class UnexpectedResponseError extends ServiceError {
  constructor(context: RequestContext, answer: ServiceAnswer, detail: string) {
    super('UNEXPECTED_RESPONSE', context, answer, `${context.method} ${context.path}: ${detail}`, {
      hint: 'The service answered in an unexpected shape; please report this message',
    });
  }
}

/**
 * A re-send the caller withheld (`RetryContext.beforeResend` said no): the request was sent before and
 * failed as `cause` says, and nothing more was sent. Code STATE_LOCKED: the caller's hold on what the
 * request is for (its state lock or lease) ended during the wait. `earlierSendMayHaveActed` tells
 * whether that earlier send may still have made something.
 */
export class ResendWithheldError extends ServiceError {
  constructor(context: RequestContext, cause: Error) {
    super(
      'STATE_LOCKED',
      context,
      {},
      `${context.method} ${context.path} was not sent again after "${cause.message}": this runner's hold on the run (its state lock or lease) ended while it waited to re-send`,
      { cause, hint: 'The runner that holds the run now goes on with this job.' },
    );
  }
}

/** Builds the error for an answer that is not a success, from its status and envelope. */
export function createHttpError(context: RequestContext, answer: ServiceAnswer): ServiceError {
  const status = answer.status ?? 0;
  if (answer.errorCode === 'AGENT_QUEUE_FULL' || status === 429) return new RateLimitedError(context, answer);
  if (status === 401 || status === 403) return new AuthenticationError(context, answer);
  if (status === 402) return new InsufficientCreditsError(context, answer);
  if (status === 404) return new NotFoundError(context, answer);
  if (status >= 500 || status === 408) return new ServerError(context, answer);
  if (status >= 400) return new ServiceValidationError(context, answer);
  return new UnexpectedResponseError(
    context,
    answer,
    `HTTP ${status} with success false${answer.errorCode === undefined ? '' : ` (errorCode ${answer.errorCode})`}` +
      (answer.serviceMessage === undefined ? '' : `: "${answer.serviceMessage}"`),
  );
}
