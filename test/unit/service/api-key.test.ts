import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSecretGuard } from '../../../src/app/read-secrets.js';
import { apiKeyInEnv, readApiKey } from '../../../src/service/api-key.js';
import { resolveServiceConfig } from '../../../src/service/config.js';

const ENV_KEY = 'sk-from-the-environment-1111';
const FILE_KEY = 'sk-from-the-key-file-2222';

let dir: string;
let keyFile: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'api-key-'));
  keyFile = join(dir, 'key');
  await writeFile(keyFile, `  ${FILE_KEY}\n`);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readApiKey: the one precedence README states', () => {
  it('takes --api-key-file (trimmed) over MEDIAGEN_API_KEY, and names the source', async () => {
    await expect(readApiKey({ env: { MEDIAGEN_API_KEY: ENV_KEY }, apiKeyFile: keyFile })).resolves.toEqual({
      value: FILE_KEY,
      from: `--api-key-file ${keyFile}`,
    });
  });

  it('takes MEDIAGEN_API_KEY (trimmed) without a key file; a blank variable is no key', async () => {
    await expect(readApiKey({ env: { MEDIAGEN_API_KEY: ` ${ENV_KEY}\n` } })).resolves.toEqual({
      value: ENV_KEY,
      from: 'MEDIAGEN_API_KEY',
    });
    await expect(readApiKey({ env: { MEDIAGEN_API_KEY: '  ' } })).resolves.toBeUndefined();
    await expect(readApiKey({ env: {} })).resolves.toBeUndefined();
    expect(apiKeyInEnv({ MEDIAGEN_API_KEY: '' })).toBeUndefined();
  });

  it('does not fall back to the variable when the key file is empty or unreadable', async () => {
    const empty = join(dir, 'empty');
    await writeFile(empty, ' \n');
    const env = { MEDIAGEN_API_KEY: ENV_KEY };
    await expect(readApiKey({ env, apiKeyFile: empty })).rejects.toMatchObject({
      code: 'AUTHENTICATION',
      message: `API key file ${empty} is empty`,
    });
    await expect(readApiKey({ env, apiKeyFile: join(dir, 'missing') })).rejects.toMatchObject({
      code: 'USAGE',
      message: `Cannot read API key file ${join(dir, 'missing')}: ENOENT`,
    });
    if (process.getuid?.() !== 0) {
      const locked = join(dir, 'locked');
      await writeFile(locked, FILE_KEY);
      await chmod(locked, 0o000);
      const error = await readApiKey({ env, apiKeyFile: locked }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'USAGE' });
      expect(String((error as Error).message)).not.toContain(FILE_KEY);
    }
  });

  it('is the key the client sends and the key the template guard keeps out, whichever sources disagree', async () => {
    const cases = [
      { env: { MEDIAGEN_API_KEY: ENV_KEY }, apiKeyFile: keyFile, sent: FILE_KEY },
      { env: { MEDIAGEN_API_KEY: ENV_KEY }, sent: ENV_KEY },
      { env: {}, apiKeyFile: keyFile, sent: FILE_KEY },
    ];
    for (const { env, apiKeyFile, sent } of cases) {
      const sources = { env, ...(apiKeyFile === undefined ? {} : { apiKeyFile }) };
      expect((await resolveServiceConfig(sources)).apiKey).toBe(sent);
      const guard = await readSecretGuard({ env, global: apiKeyFile === undefined ? {} : { apiKeyFile } });
      expect(guard.values[0]).toBe(sent);
    }
    // The variable a key file overrides is a key all the same: the guard keeps it out too.
    const both = await readSecretGuard({
      env: { MEDIAGEN_API_KEY: ENV_KEY },
      global: { apiKeyFile: keyFile },
    });
    expect(both.values).toEqual([FILE_KEY, ENV_KEY]);
    // A key file that cannot be read adds nothing to the guard: the connection reports it.
    const unreadable = await readSecretGuard({
      env: { MEDIAGEN_API_KEY: ENV_KEY },
      global: { apiKeyFile: join(dir, 'missing') },
    });
    expect(unreadable.values).toEqual([ENV_KEY]);
  });
});
