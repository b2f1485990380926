/**
 * The one reader of the service's API key, for the client and for the guard that keeps the key out
 * of what a manifest renders. Its precedence (README, "The API key"): `--api-key-file FILE` (the file's
 * trimmed contents) wins over `MEDIAGEN_API_KEY` (trimmed); a source that is empty counts as absent,
 * except a key file, which is an error, as is one that cannot be read. Nothing here prints the key.
 */
import { readFile } from 'node:fs/promises';
import { API_KEY_ENV } from '../api-key-env.js';
import { RunnerError } from '../errors.js';

export interface ApiKeySources {
  /** Usually `process.env`: reads `MEDIAGEN_API_KEY`. */
  env: Record<string, string | undefined>;
  /** `--api-key-file FILE`. */
  apiKeyFile?: string;
}

export interface ApiKey {
  value: string;
  /** Where it was read, for messages: `--api-key-file FILE` or `MEDIAGEN_API_KEY`. */
  from: string;
}

/**
 * The key the client uses, or undefined when no source holds one.
 * @throws RunnerError `USAGE` for a key file that cannot be read, `AUTHENTICATION` for an empty one.
 */
export async function readApiKey(sources: ApiKeySources): Promise<ApiKey | undefined> {
  if (sources.apiKeyFile !== undefined) {
    return { value: await readApiKeyFile(sources.apiKeyFile), from: `--api-key-file ${sources.apiKeyFile}` };
  }
  const value = apiKeyInEnv(sources.env);
  return value === undefined ? undefined : { value, from: API_KEY_ENV };
}

/** `MEDIAGEN_API_KEY`, trimmed, or undefined when unset or blank. */
export function apiKeyInEnv(env: Record<string, string | undefined>): string | undefined {
  const value = env[API_KEY_ENV]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

async function readApiKeyFile(path: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const reason = typeof code === 'string' ? code : 'read error';
    throw new RunnerError('USAGE', `Cannot read API key file ${path}: ${reason}`, {
      hint: 'Pass --api-key-file with a readable file that holds only the key',
    });
  }
  const key = text.trim();
  if (key === '') {
    throw new RunnerError('AUTHENTICATION', `API key file ${path} is empty`, {
      hint: 'Put the key from the account settings (API Key page) in the file',
    });
  }
  return key;
}
