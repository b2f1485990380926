import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const diffFile = fileURLToPath(new URL('../fixtures/cost-diff/pull-request.json', import.meta.url));
const TOKEN = 'ghp_e2eToken0123456789abcdefABCDEF0123';

/**
 * `runner comment github` through the built CLI against a stand-in of GitHub's REST API on 127.0.0.1:
 * the bundle carries the command, the token goes in the Authorization header and nowhere else.
 */
describe('runner comment github (built CLI)', () => {
  let server: Server;
  let api: string;
  const seen: { method: string; url: string; authorization: string; body: string }[] = [];
  /** Answers a request other than the default ones; undefined: the default answer. */
  let answer: ((method: string, url: string) => { status: number; body: string } | undefined) | undefined;

  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen.push({
          method: request.method ?? '',
          url: request.url ?? '',
          authorization: request.headers.authorization ?? '',
          body,
        });
        response.setHeader('content-type', 'application/json');
        const special = answer?.(request.method ?? '', request.url ?? '');
        if (special !== undefined) {
          response.statusCode = special.status;
          response.end(special.body);
        } else if (request.method === 'GET' && request.url === '/user') {
          response.end(JSON.stringify({ login: 'runner-bot', type: 'User' }));
        } else if (request.method === 'GET') {
          response.end('[]');
        } else {
          response.statusCode = 201;
          response.end(
            JSON.stringify({
              id: 11,
              body: '',
              html_url: 'https://github.com/o/r/pull/3#issuecomment-11',
              user: null,
            }),
          );
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('lists, then creates the one comment; the token only in the Authorization header', async () => {
    const result = await runCli(
      [
        'comment',
        'github',
        '--path',
        diffFile,
        '--repo',
        'o/r',
        '--pull-request',
        '3',
        '--github-api-url',
        api,
      ],
      { env: { GITHUB_TOKEN: TOKEN } },
    );
    expect(result.stderr).toBe(
      'Created the cost comment on o/r#3: https://github.com/o/r/pull/3#issuecomment-11 (no cost comment yet).\n',
    );
    expect(result.code).toBe(0);
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
    expect(seen.map((request) => `${request.method} ${request.url}`)).toEqual([
      'GET /user',
      'GET /repos/o/r/issues/3/comments?per_page=100',
      'POST /repos/o/r/issues/3/comments',
    ]);
    expect(seen.every((request) => request.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect((JSON.parse(seen[2]?.body ?? '{}') as { body: string }).body).toMatch(
      /^<!-- runner-cost-diff -->\n/,
    );
  });

  it('--dry-run without a token prints the comment and sends nothing', async () => {
    seen.length = 0;
    const result = await runCli([
      'comment',
      'github',
      '--path',
      diffFile,
      '--repo',
      'o/r',
      '--pull-request',
      '3',
      '--github-api-url',
      api,
      '--dry-run',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('**+276 credits per run (+47.6 %)**');
    expect(result.stderr).toContain('Dry run, nothing sent: would have created the cost comment on o/r#3');
    expect(seen).toEqual([]);
  });

  const target = ['--path', diffFile, '--repo', 'o/r', '--pull-request', '3'];

  /** A comment as GitHub lists it, by `login`. */
  const listed = (id: number, body: string, login: string) => ({
    id,
    body,
    html_url: `https://github.com/o/r/pull/3#issuecomment-${id}`,
    user: { login, type: 'User' },
  });

  it.each(['update', 'delete-and-new'])(
    "--behavior %s touches only the comments of the token's own user (#32.5)",
    async (behavior) => {
      seen.length = 0;
      const marker = '<!-- runner-cost-diff -->';
      answer = (method, url) =>
        method === 'GET' && url.startsWith('/repos/o/r/issues/3/comments')
          ? {
              status: 200,
              body: JSON.stringify([
                listed(21, `${marker}\nold figures`, 'runner-bot'),
                listed(22, `${marker}\nsomeone else's text, starting with the marker`, 'mallory'),
              ]),
            }
          : undefined;
      const result = await runCli(
        [...['comment', 'github'], ...target, '--github-api-url', api, '--behavior', behavior],
        {
          env: { GITHUB_TOKEN: TOKEN },
        },
      );
      answer = undefined;
      expect(result.code, result.stderr).toBe(0);
      const writes = seen.filter((request) => request.method !== 'GET').map((r) => `${r.method} ${r.url}`);
      expect(writes).toEqual(
        behavior === 'update'
          ? ['PATCH /repos/o/r/issues/comments/21']
          : ['POST /repos/o/r/issues/3/comments', 'DELETE /repos/o/r/issues/comments/21'],
      );
    },
  );

  it("with a GITHUB_TOKEN that cannot read its user, the Actions bot's comments are ours", async () => {
    seen.length = 0;
    const marker = '<!-- runner-cost-diff -->';
    answer = (method, url) => {
      if (method === 'GET' && url === '/user')
        return { status: 403, body: JSON.stringify({ message: 'Resource not accessible by integration' }) };
      if (method === 'GET' && url.startsWith('/repos/o/r/issues/3/comments'))
        return {
          status: 200,
          body: JSON.stringify([
            listed(31, `${marker}\nold figures`, 'github-actions[bot]'),
            listed(32, `${marker}\nnot ours`, 'mallory'),
          ]),
        };
      return undefined;
    };
    const result = await runCli(['comment', 'github', ...target, '--github-api-url', api], {
      env: { GITHUB_TOKEN: TOKEN, GITHUB_ACTIONS: 'true' },
    });
    answer = undefined;
    expect(result.code, result.stderr).toBe(0);
    expect(seen.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.url}`)).toEqual([
      'PATCH /repos/o/r/issues/comments/31',
    ]);
  });

  it("prints no form of the token when GitHub's error body escapes it (#32.4)", async () => {
    seen.length = 0;
    const base64 = Buffer.from(TOKEN).toString('base64');
    // As GitHub's JSON may write it: the first letter as a \u escape, then upper-case, then base64.
    const escaped = `\\u${TOKEN.charCodeAt(0).toString(16).padStart(4, '0')}${TOKEN.slice(1)}`;
    answer = (method) =>
      method === 'POST'
        ? {
            status: 422,
            body: `{"message":"Validation Failed for ${escaped}","errors":[{"message":"token ${TOKEN.toUpperCase()} / ${base64}"}]}`,
          }
        : undefined;
    const result = await runCli(['comment', 'github', ...target, '--github-api-url', api], {
      env: { GITHUB_TOKEN: TOKEN },
    });
    answer = undefined;
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('Validation Failed');
    expect(result.stderr).toContain('[REDACTED]');
    const output = (result.stdout + result.stderr).toLowerCase();
    for (const form of [TOKEN, base64]) expect(output).not.toContain(form.toLowerCase());
    expect(output).not.toContain(TOKEN.slice(4, 20).toLowerCase());
  });
});
