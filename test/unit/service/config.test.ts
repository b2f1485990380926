import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunnerError } from '../../../src/errors.js';
import { DEFAULT_BASE_URL, resolveServiceConfig } from '../../../src/service/config.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'service-config-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('resolveServiceConfig', () => {
  it('reads the key from MEDIAGEN_API_KEY and defaults the base URL', async () => {
    await expect(resolveServiceConfig({ env: { MEDIAGEN_API_KEY: ' k1 ' } })).resolves.toEqual({
      apiKey: 'k1',
      baseUrl: DEFAULT_BASE_URL,
    });
  });

  it('prefers --api-key-file (trimmed) and --base-url, stripping trailing slashes', async () => {
    const file = join(dir, 'key');
    await writeFile(file, 'file-key\n');
    await expect(
      resolveServiceConfig({
        env: { MEDIAGEN_API_KEY: 'env-key', MEDIAGEN_BASE_URL: 'http://env.test/api/v2' },
        apiKeyFile: file,
        baseUrl: 'http://127.0.0.1:9/api/v2//',
      }),
    ).resolves.toEqual({ apiKey: 'file-key', baseUrl: 'http://127.0.0.1:9/api/v2' });
  });

  it('takes MEDIAGEN_BASE_URL without a flag', async () => {
    const config = await resolveServiceConfig({
      env: { MEDIAGEN_API_KEY: 'k', MEDIAGEN_BASE_URL: 'http://x.test/api/v2/' },
    });
    expect(config.baseUrl).toBe('http://x.test/api/v2');
  });

  it('fails with AUTHENTICATION when no key is configured', async () => {
    const error = await resolveServiceConfig({ env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunnerError);
    expect(error).toMatchObject({
      code: 'AUTHENTICATION',
      message: 'No API key: set MEDIAGEN_API_KEY or pass --api-key-file FILE',
    });
  });

  it('rejects an empty or missing key file and a non-http base URL', async () => {
    const empty = join(dir, 'empty');
    await writeFile(empty, '  \n');
    await expect(resolveServiceConfig({ env: {}, apiKeyFile: empty })).rejects.toMatchObject({
      code: 'AUTHENTICATION',
    });
    await expect(resolveServiceConfig({ env: {}, apiKeyFile: join(dir, 'nope') })).rejects.toMatchObject({
      code: 'USAGE',
    });
    await expect(
      resolveServiceConfig({ env: { MEDIAGEN_API_KEY: 'k' }, baseUrl: 'ftp://x/api/v2' }),
    ).rejects.toMatchObject({ code: 'USAGE' });
  });
});
