/**
 * A small client of GitHub's REST API for the issue comments of a pull request (a pull request's
 * conversation comments are issue comments): list (paginated), create, update, delete. The token goes
 * in the `Authorization` header only, and only to the API's own origin (a `Link` to another origin is
 * refused); it is taken out of every text read from an answer before an error is built from it.
 * Docs: https://docs.github.com/en/rest/issues/comments (API version 2022-11-28).
 */
import { request, type Dispatcher } from 'undici';
import { createSecretMatcher } from '../redact-secrets.js';
import { errorFromAnswer, GitHubError, type GitHubRequestContext } from './errors.js';
import { nextPageUrl } from './link-header.js';

/** `owner/name` and a pull request number. */
export interface PullRequestRef {
  owner: string;
  repo: string;
  number: number;
}

/** An issue comment as the API returns it (the fields read here). */
export interface IssueComment {
  id: number;
  body: string;
  html_url: string;
  user: { login: string; type?: string } | null;
}

export interface GitHubClientOptions {
  /** `https://api.github.com`, or a GitHub Enterprise Server's `https://HOST/api/v3`. */
  apiUrl: string;
  token: string;
  /** Tests may pass undici's MockAgent; by default undici's global dispatcher (which nock replaces). */
  dispatcher?: Dispatcher;
  /** @default 30_000 */
  timeoutMs?: number;
  userAgent?: string;
}

export interface GitHubClient {
  /**
   * The login of the token's own user (`GET /user`), or undefined when the token may not read it (an
   * app's installation token, as GitHub Actions' `GITHUB_TOKEN`, answers 403).
   */
  getTokenLogin(): Promise<string | undefined>;
  /** Every comment of the pull request, oldest first, following `Link: rel="next"` (100 a page). */
  listIssueComments(pr: PullRequestRef): Promise<IssueComment[]>;
  createIssueComment(pr: PullRequestRef, body: string): Promise<IssueComment>;
  updateIssueComment(pr: PullRequestRef, id: number, body: string): Promise<IssueComment>;
  deleteIssueComment(pr: PullRequestRef, id: number): Promise<void>;
}

/** Stops a `Link` chain that never ends: 100 pages of 100 comments. */
const MAX_PAGES = 100;
const MAX_MESSAGE_CHARS = 300;

/** Creates the client; it sends nothing until a method is called. */
export function createGitHubClient(options: GitHubClientOptions): GitHubClient {
  const base = options.apiUrl.replace(/\/+$/, '');
  const origin = new URL(base).origin;
  // The token in every form (JSON-escaped, upper-case, base64...: issue #32.4), the same function the
  // service client redacts its keys with.
  const clean = createSecretMatcher(options.token === '' ? [] : [options.token]);

  async function send<T>(
    context: GitHubRequestContext,
    body: unknown,
    read: (answer: Dispatcher.ResponseData) => Promise<T>,
  ): Promise<T> {
    if (new URL(context.url).origin !== origin) {
      throw new GitHubError(
        'UNEXPECTED_RESPONSE',
        `GitHub pointed to ${context.url}, outside ${origin}; not followed.`,
        context,
      );
    }
    let answer: Dispatcher.ResponseData;
    try {
      answer = await request(context.url, {
        method: context.method,
        headers: {
          accept: 'application/vnd.github+json',
          authorization: `Bearer ${options.token}`,
          'x-github-api-version': '2022-11-28',
          'user-agent': options.userAgent ?? 'mediagen-runner',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(options.dispatcher === undefined ? {} : { dispatcher: options.dispatcher }),
        signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
      });
    } catch (error) {
      const reason = clean(error instanceof Error ? error.message : String(error));
      throw new GitHubError(
        'NETWORK',
        `Could not reach GitHub for ${context.method} ${context.url}: ${reason}.`,
        {
          ...context,
          hint: 'Check the network and --github-api-url (or GITHUB_API_URL).',
        },
      );
    }
    if (answer.statusCode >= 200 && answer.statusCode < 300) return read(answer);
    const text = clean(await answer.body.text().catch(() => ''));
    throw errorFromAnswer(context, {
      status: answer.statusCode,
      headers: answer.headers,
      // Again once parsed: JSON escapes decoded by the parse could spell the token anew.
      message: clean(readMessage(text)),
    });
  }

  const json = async <T>(answer: Dispatcher.ResponseData, context: GitHubRequestContext): Promise<T> => {
    const text = await answer.body.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new GitHubError(
        'UNEXPECTED_RESPONSE',
        `GitHub answered ${context.method} ${context.url} with text that is not JSON.`,
        {
          ...context,
          status: answer.statusCode,
        },
      );
    }
  };

  const repoUrl = (pr: PullRequestRef) =>
    `${base}/repos/${encodeURIComponent(pr.owner)}/${encodeURIComponent(pr.repo)}`;
  const named = (pr: PullRequestRef) => `${pr.owner}/${pr.repo}#${pr.number}`;

  return {
    async getTokenLogin() {
      const context: GitHubRequestContext = {
        method: 'GET',
        url: `${base}/user`,
        subject: "the token's user",
      };
      try {
        const user = await send(context, undefined, (answer) => json<{ login?: unknown }>(answer, context));
        return typeof user.login === 'string' && user.login !== '' ? user.login : undefined;
      } catch (error) {
        if (error instanceof GitHubError && (error.status === 403 || error.status === 404)) return undefined;
        throw error;
      }
    },
    async listIssueComments(pr) {
      const comments: IssueComment[] = [];
      let url: string | undefined = `${repoUrl(pr)}/issues/${pr.number}/comments?per_page=100`;
      for (let page = 0; url !== undefined && page < MAX_PAGES; page++) {
        const context: GitHubRequestContext = { method: 'GET', url, subject: `pull request ${named(pr)}` };
        const { items, next } = await send(context, undefined, async (answer) => ({
          items: await json<unknown>(answer, context),
          next: nextPageUrl(answer.headers.link),
        }));
        if (!Array.isArray(items)) {
          throw new GitHubError(
            'UNEXPECTED_RESPONSE',
            `GitHub answered ${context.method} ${url} with something that is not a list.`,
            context,
          );
        }
        comments.push(...items.filter(isComment));
        url = next;
      }
      return comments;
    },
    async createIssueComment(pr, body) {
      const context: GitHubRequestContext = {
        method: 'POST',
        url: `${repoUrl(pr)}/issues/${pr.number}/comments`,
        subject: `a comment on pull request ${named(pr)}`,
      };
      return send(context, { body }, (answer) => json<IssueComment>(answer, context));
    },
    async updateIssueComment(pr, id, body) {
      const context: GitHubRequestContext = {
        method: 'PATCH',
        url: `${repoUrl(pr)}/issues/comments/${id}`,
        subject: `comment ${id} on ${named(pr)}`,
      };
      return send(context, { body }, (answer) => json<IssueComment>(answer, context));
    },
    async deleteIssueComment(pr, id) {
      const context: GitHubRequestContext = {
        method: 'DELETE',
        url: `${repoUrl(pr)}/issues/comments/${id}`,
        subject: `comment ${id} on ${named(pr)}`,
      };
      await send(context, undefined, async (answer) => {
        await answer.body.dump();
      });
    },
  };
}

function isComment(value: unknown): value is IssueComment {
  const item = value as Partial<IssueComment> | null;
  return (
    typeof item === 'object' && item !== null && typeof item.id === 'number' && typeof item.body === 'string'
  );
}

/** GitHub's error body: `{ message, errors: [{ message | code, field }] }`, cut to a line. */
function readMessage(text: string): string {
  let message = text;
  try {
    const parsed = JSON.parse(text) as { message?: unknown; errors?: unknown };
    const parts = [typeof parsed.message === 'string' ? parsed.message : ''];
    if (Array.isArray(parsed.errors)) {
      for (const item of parsed.errors as Array<Record<string, unknown> | string | null>) {
        if (item === null) continue;
        if (typeof item === 'string') parts.push(item);
        else if (typeof item.message === 'string') parts.push(item.message);
        else if (typeof item.code === 'string')
          parts.push(`${typeof item.field === 'string' ? item.field : ''} ${item.code}`.trim());
      }
    }
    message = parts.filter((part) => part !== '').join('; ');
  } catch {
    // Not JSON (a proxy's page): its text, cut.
  }
  // eslint-disable-next-line no-control-regex
  const line = message.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return line.length > MAX_MESSAGE_CHARS ? `${line.slice(0, MAX_MESSAGE_CHARS - 1)}…` : line;
}
