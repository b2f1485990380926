import { describe, expect, it } from 'vitest';
import {
  costChanged,
  costIncreased,
  isOurComment,
  planComment,
  readGitHubToken,
  resolveApiUrl,
  resolvePullRequest,
} from '../../../src/app/comment-github.js';
import { delta, diffOf, manyJobsManifest } from '../diff/cost-diff-fixtures.js';

const comment = (id: number, body: string) => ({ id, body, html_url: `u${id}`, user: null });

describe('planComment', () => {
  const ours = [comment(1, 'old'), comment(2, 'newer')];
  const cases: [string, Parameters<typeof planComment>[0], string][] = [
    ['update, none of ours', { behavior: 'update', met: true, ours: [], body: 'b' }, 'create'],
    ['update, ours: the newest edited', { behavior: 'update', met: true, ours, body: 'b' }, 'update 2'],
    [
      'update, not met, ours: still refreshed',
      { behavior: 'update', met: false, ours, body: 'b' },
      'update 2',
    ],
    ['update, same text', { behavior: 'update', met: true, ours, body: 'newer' }, 'unchanged 2'],
    ['update, not met, none', { behavior: 'update', met: false, ours: [], body: 'b' }, 'skip'],
    ['new, ours', { behavior: 'new', met: true, ours, body: 'b' }, 'create'],
    ['new, not met', { behavior: 'new', met: false, ours, body: 'b' }, 'skip'],
    ['delete-and-new, ours', { behavior: 'delete-and-new', met: true, ours, body: 'b' }, 'replace 1,2'],
    [
      'delete-and-new, not met, ours',
      { behavior: 'delete-and-new', met: false, ours, body: 'b' },
      'replace 1,2',
    ],
    [
      'delete-and-new, not met, none',
      { behavior: 'delete-and-new', met: false, ours: [], body: 'b' },
      'skip',
    ],
  ];
  it.each(cases)('%s', (_, input, expected) => {
    const plan = planComment(input);
    const shown =
      plan.kind === 'update' || plan.kind === 'unchanged'
        ? `${plan.kind} ${plan.comment.id}`
        : plan.kind === 'replace'
          ? `replace ${plan.comments.map((c) => c.id).join(',')}`
          : plan.kind;
    expect(shown).toBe(expected);
  });
});

describe('when the cost changed or increased', () => {
  it('reads per run, per month, and per manifest (a move that sums to zero is a change)', () => {
    const flat = diffOf([]);
    expect([costChanged(flat), costIncreased(flat)]).toEqual([false, false]);
    const up = manyJobsManifest('a.yaml', 1, () => 'a');
    const down = { ...manyJobsManifest('b.yaml', 1, () => 'b'), perRun: delta(40, 20) };
    const even = { ...diffOf([up, down]), total: delta(60, 60) };
    expect([costChanged(even), costIncreased(even)]).toEqual([true, false]);
    // A schedule change (nightly → hourly) moves only the month.
    const monthly = { ...flat, totalPerMonth: delta(300, 7200) };
    expect([costChanged(monthly), costIncreased(monthly)]).toEqual([true, true]);
  });
});

describe('finding our comment', () => {
  it('is the marker as the first line, not a quote of it nor another tag', () => {
    expect(isOurComment({ body: '<!-- runner-cost-diff -->\n### Cost' }, '<!-- runner-cost-diff -->')).toBe(
      true,
    );
    expect(isOurComment({ body: '<!-- runner-cost-diff -->\r\n### Cost' }, '<!-- runner-cost-diff -->')).toBe(
      true,
    );
    expect(isOurComment({ body: '> <!-- runner-cost-diff -->' }, '<!-- runner-cost-diff -->')).toBe(false);
    expect(isOurComment({ body: '<!-- runner-cost-diff: a -->\n' }, '<!-- runner-cost-diff -->')).toBe(false);
  });
});

describe('where and with what', () => {
  const read = (files: Record<string, string>) => (file: string) => {
    const text = files[file];
    if (text === undefined)
      return Promise.reject(Object.assign(new Error(`ENOENT: ${file}`), { code: 'ENOENT' }));
    return Promise.resolve(text);
  };

  it('takes flags over GitHub Actions variables', async () => {
    const env = { GITHUB_REPOSITORY: 'a/b', GITHUB_EVENT_PATH: '/e.json' };
    const files = read({ '/e.json': '{"pull_request":{"number":7}}' });
    expect(await resolvePullRequest({}, env, files)).toEqual({ owner: 'a', repo: 'b', number: 7 });
    expect(await resolvePullRequest({ repo: 'c/d', pullRequest: '9' }, env, files)).toEqual({
      owner: 'c',
      repo: 'd',
      number: 9,
    });
    const onComment = read({ '/c.json': '{"issue":{"number":12,"pull_request":{"url":"x"}}}' });
    expect(await resolvePullRequest({}, { ...env, GITHUB_EVENT_PATH: '/c.json' }, onComment)).toMatchObject({
      number: 12,
    });
    // A push event has no pull request, nor an issue's comment.
    await expect(
      resolvePullRequest(
        {},
        { ...env, GITHUB_EVENT_PATH: '/push.json' },
        read({ '/push.json': '{"ref":"x"}' }),
      ),
    ).rejects.toThrow('No pull request to comment on.');
    await expect(resolvePullRequest({ pullRequest: '0' }, env, files)).rejects.toThrow(
      '--pull-request must be',
    );
  });

  it('reads the token from its file (first line) or GITHUB_TOKEN', async () => {
    expect(await readGitHubToken('/t', {}, read({ '/t': 'ghs_abc\n' }))).toBe('ghs_abc');
    expect(await readGitHubToken(undefined, { GITHUB_TOKEN: ' ghs_env ' }, read({}))).toBe('ghs_env');
    expect(await readGitHubToken(undefined, { GITHUB_TOKEN: '' }, read({}))).toBeUndefined();
    await expect(readGitHubToken('/empty', {}, read({ '/empty': '\n' }))).rejects.toThrow('is empty');
    await expect(readGitHubToken('/none', {}, read({}))).rejects.toThrow(
      'Cannot read --github-token-file /none: ENOENT',
    );
  });

  it('takes an https API URL (GHES), plain http only on this machine', () => {
    expect(resolveApiUrl(undefined, {})).toBe('https://api.github.com');
    expect(resolveApiUrl(undefined, { GITHUB_API_URL: 'https://ghe.example.com/api/v3/' })).toBe(
      'https://ghe.example.com/api/v3',
    );
    expect(resolveApiUrl('http://127.0.0.1:8080', {})).toBe('http://127.0.0.1:8080');
    expect(() => resolveApiUrl('http://ghe.example.com/api/v3', {})).toThrow('must be an https:// URL');
    expect(() => resolveApiUrl('https://user:pw@ghe.example.com', {})).toThrow('plain base URL');
  });
});
