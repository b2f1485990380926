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
        if (request.method === 'GET') {
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
      'GET /repos/o/r/issues/3/comments?per_page=100',
      'POST /repos/o/r/issues/3/comments',
    ]);
    expect(seen.every((request) => request.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect((JSON.parse(seen[1]?.body ?? '{}') as { body: string }).body).toMatch(
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
});
