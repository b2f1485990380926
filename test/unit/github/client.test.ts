import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGitHubClient } from '../../../src/github/client.js';
import { GitHubError } from '../../../src/github/errors.js';
import { nextPageUrl } from '../../../src/github/link-header.js';
import { API, errors, issueComment, TOKEN } from './github-api.js';

const pr = { owner: 'octo-org', repo: 'pipelines', number: 42 };
const comments = '/repos/octo-org/pipelines/issues/42/comments';
const client = () => createGitHubClient({ apiUrl: API, token: TOKEN });

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending, 'requests the test expected but the command did not send').toEqual([]);
});

async function failure(promise: Promise<unknown>): Promise<GitHubError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(GitHubError);
  expect(String((error as Error).message) + String((error as GitHubError).hint)).not.toContain(TOKEN);
  return error as GitHubError;
}

describe('the GitHub client', () => {
  it('lists every page of comments, 100 a page, following Link rel="next", with the documented headers', async () => {
    const page2 = `${API}/repositories/7/issues/42/comments?per_page=100&page=2`;
    nock(API, {
      reqheaders: {
        authorization: `Bearer ${TOKEN}`,
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        'user-agent': /./,
      },
    })
      .get(comments)
      .query({ per_page: '100' })
      .reply(
        200,
        Array.from({ length: 100 }, (_, i) => issueComment(i + 1, `c${i + 1}`)),
        {
          link: `<${page2}>; rel="next", <${API}/repositories/7/issues/42/comments?per_page=100&page=2>; rel="last"`,
        },
      )
      .get('/repositories/7/issues/42/comments')
      .query({ per_page: '100', page: '2' })
      .reply(200, [issueComment(101, 'c101')], {
        link: `<${API}/repositories/7/issues/42/comments?per_page=100&page=1>; rel="prev", <${API}/repositories/7/issues/42/comments?per_page=100&page=1>; rel="first"`,
      });
    const list = await client().listIssueComments(pr);
    expect(list.map((c) => c.id)).toEqual(Array.from({ length: 101 }, (_, i) => i + 1));
  });

  it('creates, updates and deletes a comment', async () => {
    nock(API)
      .post(comments, { body: 'hello' })
      .reply(201, issueComment(9, 'hello'))
      .patch('/repos/octo-org/pipelines/issues/comments/9', { body: 'again' })
      .reply(200, issueComment(9, 'again'))
      .delete('/repos/octo-org/pipelines/issues/comments/9')
      .reply(204);
    const api = client();
    expect((await api.createIssueComment(pr, 'hello')).html_url).toBe(
      'https://github.com/octo-org/pipelines/pull/42#issuecomment-9',
    );
    expect((await api.updateIssueComment(pr, 9, 'again')).body).toBe('again');
    await api.deleteIssueComment(pr, 9);
  });

  it('does not follow a Link to another origin (the token stays with the API)', async () => {
    nock(API)
      .get(comments)
      .query(true)
      .reply(200, [], { link: '<https://evil.example/steal?page=2>; rel="next"' });
    const error = await failure(client().listIssueComments(pr));
    expect(error.message).toContain('outside https://api.github.com; not followed');
  });

  it('401: the token is bad (exit 4)', async () => {
    nock(API).get(comments).query(true).reply(401, errors.badCredentials);
    const error = await failure(client().listIssueComments(pr));
    expect(error.code).toBe('AUTHENTICATION');
    expect(error.message).toBe(
      `GitHub refused the token (HTTP 401: Bad credentials) for GET ${API}${comments}?per_page=100.`,
    );
  });

  it('403 without the permission names the permission to grant', async () => {
    nock(API).post(comments).reply(403, errors.notAccessible, { 'x-ratelimit-remaining': '4999' });
    const error = await failure(client().createIssueComment(pr, 'x'));
    expect(error.code).toBe('AUTHENTICATION');
    expect(error.message).toContain('HTTP 403: Resource not accessible by integration');
    expect(error.message).toContain('lacks a permission');
    expect(error.hint).toContain('permissions: pull-requests: write');
  });

  it('403 with x-ratelimit-remaining: 0 is the rate limit, with its reset time', async () => {
    nock(API).get(comments).query(true).reply(403, errors.rateLimited, {
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1795600000',
    });
    const error = await failure(client().listIssueComments(pr));
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.message).toContain('rate limit is spent (HTTP 403: API rate limit exceeded');
    expect(error.message).toContain('it resets at 25 Nov 2026, 09:46:40 UTC.');
  });

  it('404: no such repository or pull request, or the token cannot see it', async () => {
    nock(API).get(comments).query(true).reply(404, errors.notFound);
    const error = await failure(client().listIssueComments(pr));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toContain(
      'GitHub found no pull request octo-org/pipelines#42 (HTTP 404: Not Found)',
    );
    expect(error.hint).toContain('cannot see it');
  });

  it("422: GitHub's validation message, and never the token even when an answer echoes it", async () => {
    nock(API)
      .post(comments)
      .reply(422, { ...errors.tooLong, message: `Validation Failed for ${TOKEN}` });
    const error = await failure(client().createIssueComment(pr, 'x'));
    expect(error.code).toBe('SERVICE_VALIDATION');
    expect(error.message).toContain('body is too long (maximum is 65536 characters)');
    expect(error.message).toContain('[REDACTED]');
  });
});

describe('nextPageUrl', () => {
  it('reads rel="next" among others, and nothing when there is none', () => {
    expect(nextPageUrl('<https://a/x?page=3>; rel="next", <https://a/x?page=9>; rel="last"')).toBe(
      'https://a/x?page=3',
    );
    expect(nextPageUrl('<https://a/x?page=1>; rel="prev"')).toBeUndefined();
    expect(nextPageUrl(undefined)).toBeUndefined();
  });
});
