import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CostDiff } from '../../../src/diff/cost-diff.js';
import { delta, diffOf, FIXTURES, pullRequestDiff } from '../diff/cost-diff-fixtures.js';
import { API, errors, issueComment, TOKEN } from '../github/github-api.js';
import { runInProcess } from './run-in-process.js';

/**
 * `runner comment github` against GitHub's REST API as documented (nock): which requests each
 * `--behavior` and `--when` sends, the errors and exit codes, and the token in no output stream.
 */
const comments = '/repos/octo-org/pipelines/issues/42/comments';
const one = (id: number) => `/repos/octo-org/pipelines/issues/comments/${id}`;
const MARKER = '<!-- runner-cost-diff -->';
let dir: string;
let diffFile: string;
const target = ['--repo', 'octo-org/pipelines', '--pull-request', '42'];

beforeAll(async () => {
  nock.disableNetConnect();
  dir = await mkdtemp(join(tmpdir(), 'runner-comment-'));
  diffFile = join(dir, 'diff.json');
  await writeFile(diffFile, JSON.stringify(pullRequestDiff()));
});
afterAll(async () => {
  nock.enableNetConnect();
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending, 'requests the test expected but the command did not send').toEqual([]);
});

async function comment(args: string[], env: NodeJS.ProcessEnv = { GITHUB_TOKEN: TOKEN }) {
  // The token's user, whose comments alone are edited (issue #32.5): the bot the fixtures' comments carry.
  nock(API).get('/user').optionally().reply(200, { login: 'github-actions[bot]', type: 'Bot' });
  const result = await runInProcess(['comment', 'github', ...args], env);
  expect(result.stdout).not.toContain(TOKEN);
  expect(result.stderr).not.toContain(TOKEN);
  return result;
}

async function writeDiff(name: string, diff: CostDiff): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, JSON.stringify(diff));
  return file;
}

/** Captures the body of the comment sent. */
function capture(): { body?: string; check: (body: { body: string }) => boolean } {
  const seen: { body?: string; check: (body: { body: string }) => boolean } = {
    check: (body) => {
      seen.body = body.body;
      return true;
    },
  };
  return seen;
}

describe('runner comment github --behavior update (the default)', () => {
  it('creates the comment when there is none of ours, and says where', async () => {
    const sent = capture();
    nock(API)
      .get(comments)
      .query({ per_page: '100' })
      .reply(200, [issueComment(1, 'LGTM', 'octocat')])
      .post(comments, sent.check)
      .reply(201, issueComment(77, 'x'));
    const result = await comment(['--path', diffFile, ...target]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      'Created the cost comment on octo-org/pipelines#42: https://github.com/octo-org/pipelines/pull/42#issuecomment-77 (no cost comment yet).\n',
    );
    expect(sent.body?.startsWith(`${MARKER}\n### Cost of this pull request\n`)).toBe(true);
    expect(sent.body).toContain('**+276 credits per run (+47.6 %)**');
  });

  it('edits our newest comment in place (found on a later page), not a quote of it nor a tagged one', async () => {
    nock(API)
      .get(comments)
      .query({ per_page: '100' })
      .reply(
        200,
        [issueComment(5, `${MARKER}\nold`), issueComment(6, `> ${MARKER}\n> quoted by a person`, 'octocat')],
        { link: `<${API}/repositories/9/issues/42/comments?per_page=100&page=2>; rel="next"` },
      )
      .get('/repositories/9/issues/42/comments')
      .query({ per_page: '100', page: '2' })
      .reply(200, [
        issueComment(8, `${MARKER}\nnewer`),
        issueComment(9, '<!-- runner-cost-diff: video -->\nother'),
      ])
      .patch(one(8))
      .reply(200, issueComment(8, 'x'));
    const result = await comment(['--path', diffFile, ...target]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('Updated the cost comment on octo-org/pipelines#42');
  });

  it('sends nothing when our comment already says this', async () => {
    const body = (await comment(['--path', diffFile, ...target, '--dry-run'], {})).stdout;
    nock(API)
      .get(comments)
      .query(true)
      .reply(200, [issueComment(5, body)]);
    const result = await comment(['--path', diffFile, ...target]);
    expect(result.stderr).toContain('already says this; nothing sent');
  });

  it('with --when changed: skips when the cost did not change, but still refreshes our comment', async () => {
    const flat = await writeDiff('flat.json', { ...diffOf([]), total: delta(580, 580) });
    nock(API).get(comments).query(true).reply(200, []);
    const skipped = await comment(['--path', flat, ...target, '--when', 'changed']);
    expect(skipped.code).toBe(0);
    expect(skipped.stderr).toBe(
      'No comment on octo-org/pipelines#42: the cost did not change (--when changed) and there is no cost comment to refresh.\n',
    );
    const sent = capture();
    nock(API)
      .get(comments)
      .query(true)
      .reply(200, [issueComment(5, `${MARKER}\n+276 credits`)])
      .patch(one(5), sent.check)
      .reply(200, issueComment(5, 'x'));
    const refreshed = await comment(['--path', flat, ...target, '--when', 'changed']);
    expect(refreshed.stderr).toContain('the cost comment is refreshed so it does not say otherwise');
    expect(sent.body).toContain('**No change in cost**');
  });

  it('with --when increased: skips a decrease', async () => {
    const cheaper = await writeDiff('cheaper.json', { ...diffOf([]), total: delta(580, 400) });
    nock(API).get(comments).query(true).reply(200, []);
    const result = await comment(['--path', cheaper, ...target, '--when', 'increased']);
    expect(result.stderr).toContain('the cost did not increase (--when increased)');
  });
});

describe('runner comment github --behavior new | delete-and-new', () => {
  it('new: adds a comment even when ours exists', async () => {
    nock(API)
      .get(comments)
      .query(true)
      .reply(200, [issueComment(5, `${MARKER}\nold`)])
      .post(comments)
      .reply(201, issueComment(6, 'x'));
    const result = await comment(['--path', diffFile, ...target, '--behavior', 'new']);
    expect(result.stderr).toContain('Created the cost comment');
  });

  it('delete-and-new: creates the new comment, then deletes each of ours (a tag keeps others apart)', async () => {
    const order: string[] = [];
    nock(API)
      .get(comments)
      .query(true)
      .reply(200, [
        issueComment(5, '<!-- runner-cost-diff: video -->\nold'),
        issueComment(6, '<!-- runner-cost-diff: video -->\nolder'),
        issueComment(7, `${MARKER}\nuntagged`),
      ])
      .post(
        comments,
        (body: { body?: string }) => body.body?.startsWith('<!-- runner-cost-diff: video -->\n') === true,
      )
      .reply(201, () => (order.push('create'), issueComment(8, 'x')))
      .delete(one(5))
      .reply(204, () => (order.push('delete 5'), ''))
      .delete(one(6))
      .reply(204, () => (order.push('delete 6'), ''));
    const result = await comment([
      '--path',
      diffFile,
      ...target,
      '--behavior',
      'delete-and-new',
      '--tag',
      'video',
    ]);
    expect(result.code).toBe(0);
    expect(order).toEqual(['create', 'delete 5', 'delete 6']);
    expect(result.stderr).toContain('2 cost comments deleted and a new one created');
  });
});

describe('runner comment github: where, dry runs and JSON', () => {
  it('takes the repository, pull request and API URL from GitHub Actions (GHES)', async () => {
    const event = join(dir, 'event.json');
    await writeFile(
      event,
      JSON.stringify({ action: 'synchronize', number: 42, pull_request: { number: 42 } }),
    );
    const ghes = 'https://ghe.example.com/api/v3';
    nock(ghes)
      .get('/user')
      .reply(200, { login: 'github-actions[bot]' })
      .get(comments)
      .query(true)
      .reply(200, [])
      .post(comments)
      .reply(201, issueComment(3, 'x'));
    const result = await comment(['--path', diffFile], {
      GITHUB_TOKEN: TOKEN,
      GITHUB_REPOSITORY: 'octo-org/pipelines',
      GITHUB_EVENT_PATH: event,
      GITHUB_API_URL: ghes,
    });
    expect(result.code).toBe(0);
  });

  it('--dry-run reads the comments but writes nothing; prints the body and the action', async () => {
    nock(API)
      .get(comments)
      .query(true)
      .reply(200, [issueComment(5, `${MARKER}\nold`)]);
    const result = await comment(['--path', diffFile, ...target, '--dry-run']);
    expect(result.stdout.startsWith(MARKER)).toBe(true);
    expect(result.stderr).toContain(
      'Dry run, nothing sent: would have updated the cost comment on octo-org/pipelines#42',
    );
  });

  it('--format json prints the result, the token file read and never echoed', async () => {
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, `${TOKEN}\n`);
    nock(API, { reqheaders: { authorization: `Bearer ${TOKEN}` } })
      .get(comments)
      .query(true)
      .reply(200, [])
      .post(comments)
      .reply(201, issueComment(77, 'x'));
    const result = await comment(
      ['--path', diffFile, ...target, '--format', 'json', '--github-token-file', tokenFile],
      {},
    );
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({
      action: 'created',
      dryRun: false,
      pullRequest: 'octo-org/pipelines#42',
      commentId: 77,
      deleted: [],
      costChanged: true,
      costIncreased: true,
    });
    expect(json.body).toBeUndefined();
  });
});

describe('runner comment github: errors', () => {
  it('403 without the permission: exit 4 with the permission to grant', async () => {
    nock(API).get(comments).query(true).reply(200, []).post(comments).reply(403, errors.notAccessible);
    const result = await comment(['--path', diffFile, ...target]);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('HTTP 403: Resource not accessible by integration');
    expect(result.stderr).toContain('permissions: pull-requests: write');
  });

  it('404: exit 1, naming the pull request', async () => {
    nock(API).get(comments).query(true).reply(404, errors.notFound);
    const result = await comment(['--path', diffFile, ...target]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'GitHub found no pull request octo-org/pipelines#42 (HTTP 404: Not Found)',
    );
  });

  it('401 with a bad token: exit 4, the token not shown', async () => {
    nock(API).get(comments).query(true).reply(401, errors.badCredentials);
    const result = await comment(['--path', diffFile, ...target]);
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('GitHub refused the token (HTTP 401: Bad credentials)');
  });

  it('no token: exit 4 before any request', async () => {
    const result = await comment(['--path', diffFile, ...target], {});
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('No GitHub token: set GITHUB_TOKEN or pass --github-token-file.');
  });

  it('refuses a token on the command line, without echoing it', async () => {
    const result = await comment(['--path', diffFile, ...target, '--github-token', TOKEN]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Unknown option `--github-token`');
  });

  it('refuses a file that is not a cost diff, and usage mistakes, with exit 2 and nothing sent', async () => {
    const plan = await writeDiff('plan.json', { kind: 'runner-plan' } as unknown as CostDiff);
    const cases: [string[], string][] = [
      [['--path', plan, ...target], 'is not a cost diff (its kind is "runner-plan")'],
      [['--path', `${FIXTURES}missing.json`, ...target], 'Cannot read the cost diff'],
      [[...target], 'needs --path'],
      [['--path', diffFile, '--repo', 'octo-org'], '--repo must be owner/name'],
      [['--path', diffFile, '--repo', 'octo-org/pipelines'], 'No pull request to comment on.'],
      [
        ['--path', diffFile, ...target, '--behavior', 'upsert'],
        '--behavior expects one of update, new, delete-and-new',
      ],
      [
        ['--path', diffFile, ...target, '--when', 'sometimes'],
        '--when expects one of always, changed, increased',
      ],
      [['--path', diffFile, ...target, '--tag', 'a -->'], '--tag may hold letters'],
      [
        ['--path', diffFile, ...target, '--github-api-url', 'http://ghe.example.com/api/v3'],
        'must be an https:// URL',
      ],
    ];
    for (const [args, message] of cases) {
      const result = await comment(args);
      expect(result.stderr, args.join(' ')).toContain(message);
      expect(result.code, args.join(' ')).toBe(2);
    }
    const gitlab = await runInProcess(['comment', 'gitlab', '--path', diffFile]);
    expect(gitlab.code).toBe(2);
  });
});
