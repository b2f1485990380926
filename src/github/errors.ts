import { RunnerError, type ErrorCode } from '../errors.js';
import { readableUtcTime } from '../readable-time.js';

/** Which request failed, as errors name it (never with the token, which travels in a header only). */
export interface GitHubRequestContext {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  url: string;
  /** What the request was about, in words: `the comments of octo/repo#12`. */
  subject: string;
}

/** An answer from GitHub's REST API that is not a success, or no answer at all. */
export class GitHubError extends RunnerError {
  /** The HTTP status; `undefined` when no answer came (network). */
  readonly status: number | undefined;
  readonly method: GitHubRequestContext['method'];
  readonly url: string;

  constructor(
    code: ErrorCode,
    message: string,
    context: GitHubRequestContext & { status?: number; hint?: string; cause?: unknown },
  ) {
    super(code, message, {
      ...(context.hint === undefined ? {} : { hint: context.hint }),
      ...(context.cause === undefined ? {} : { cause: context.cause }),
    });
    this.status = context.status;
    this.method = context.method;
    this.url = context.url;
  }
}

/** What an error answer's headers and body said. */
export interface ErrorAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** GitHub's `message` (and its `errors[]` messages), already cut and cleaned of the token. */
  message: string;
}

function header(headers: ErrorAnswer['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** `x-ratelimit-reset` (epoch seconds) as a person reads it, to the second (a time waited for), or undefined. */
function resetTime(headers: ErrorAnswer['headers']): string | undefined {
  const reset = Number(header(headers, 'x-ratelimit-reset'));
  return Number.isFinite(reset) && reset > 0 ? readableUtcTime(reset * 1000, { seconds: true }) : undefined;
}

/**
 * Turns an error answer into a typed error with a message that says which request, what GitHub said
 * and what to do. 401: the token is bad (AUTHENTICATION, exit 4); 403 with `x-ratelimit-remaining: 0`
 * or a secondary limit, and 429: rate limited (RATE_LIMITED, with the reset time); any other 403: the
 * token lacks a permission (AUTHENTICATION); 404: no such repository or pull request, or the token
 * cannot see it (NOT_FOUND); 422: GitHub refused the content (SERVICE_VALIDATION).
 */
export function errorFromAnswer(context: GitHubRequestContext, answer: ErrorAnswer): GitHubError {
  const { status, headers } = answer;
  const request = `${context.method} ${context.url}`;
  const said = answer.message === '' ? '' : `: ${answer.message}`;
  const at = { ...context, status };
  const limited =
    status === 429 ||
    (status === 403 &&
      (header(headers, 'x-ratelimit-remaining') === '0' || /rate limit/i.test(answer.message)));
  if (limited) {
    const reset = resetTime(headers);
    const retryAfter = header(headers, 'retry-after');
    const when =
      reset !== undefined
        ? `it resets at ${reset}`
        : retryAfter !== undefined
          ? `retry after ${retryAfter} s`
          : 'retry later';
    return new GitHubError(
      'RATE_LIMITED',
      `GitHub's API rate limit is spent (HTTP ${status}${said}) for ${request}; ${when}.`,
      {
        ...at,
        hint: 'Run it again after that time; a workflow can re-run the failed job.',
      },
    );
  }
  switch (status) {
    case 401:
      return new GitHubError('AUTHENTICATION', `GitHub refused the token (HTTP 401${said}) for ${request}.`, {
        ...at,
        hint: 'The token in GITHUB_TOKEN or --github-token-file is wrong, expired or revoked.',
      });
    case 403:
      return new GitHubError(
        'AUTHENTICATION',
        `GitHub refused ${context.subject} to this token (HTTP 403${said}) for ${request}: it lacks a permission.`,
        {
          ...at,
          hint:
            'Give the workflow job `permissions: pull-requests: write` (a fine-grained token: "Pull requests: write" or "Issues: write" on the repository). ' +
            'On `pull_request` events from a fork GitHub grants a read-only token: the comment cannot be posted from that run.',
        },
      );
    case 404:
      return new GitHubError(
        'NOT_FOUND',
        `GitHub found no ${context.subject} (HTTP 404${said}) for ${request}.`,
        {
          ...at,
          hint: 'Check --repo owner/name and --pull-request N (or GITHUB_REPOSITORY and the event): the repository or pull request does not exist, or this token cannot see it (a private repository).',
        },
      );
    case 422:
      return new GitHubError(
        'SERVICE_VALIDATION',
        `GitHub refused ${context.subject} (HTTP 422${said}) for ${request}.`,
        at,
      );
    default:
      return new GitHubError(
        status >= 500 ? 'SERVER_ERROR' : 'UNEXPECTED_RESPONSE',
        `GitHub answered HTTP ${status}${said} for ${request}.`,
        { ...at, ...(status >= 500 ? { hint: 'GitHub may be having trouble: run it again later.' } : {}) },
      );
  }
}
