/**
 * Where the client's base URL and API key come from: flags first, then the environment (the key
 * through {@link readApiKey}, its one reader).
 */
import { RunnerError } from '../errors.js';
import { readApiKey } from './api-key.js';

export const DEFAULT_BASE_URL = 'https://sangtao.ai/api/v2';

export interface ServiceConfigSources {
  /** Usually `process.env`. Reads `MEDIAGEN_API_KEY` and `MEDIAGEN_BASE_URL`. */
  env: Record<string, string | undefined>;
  /** `--api-key-file FILE`: the key is the file's trimmed contents. Wins over `MEDIAGEN_API_KEY`. */
  apiKeyFile?: string;
  /** `--base-url`: wins over `MEDIAGEN_BASE_URL`. */
  baseUrl?: string;
}

export interface ServiceConfig {
  /** Without trailing slashes, e.g. `https://sangtao.ai/api/v2`. */
  baseUrl: string;
  apiKey: string;
}

/**
 * Resolves base URL and API key.
 * @throws RunnerError `AUTHENTICATION` when no key is configured, `USAGE` for an unreadable key file
 *   or a base URL that is not an http(s) URL.
 */
export async function resolveServiceConfig(sources: ServiceConfigSources): Promise<ServiceConfig> {
  const baseUrl = resolveBaseUrl(
    sources.baseUrl ?? nonEmpty(sources.env.MEDIAGEN_BASE_URL) ?? DEFAULT_BASE_URL,
  );
  const apiKey = (await readApiKey(sources))?.value;
  if (apiKey === undefined) {
    throw new RunnerError('AUTHENTICATION', 'No API key: set MEDIAGEN_API_KEY or pass --api-key-file FILE', {
      hint: 'Create a key in the account settings under the API Key page. Without one, `runner validate FILE --catalog catalog.json` checks a manifest offline, and --simulate runs any command against the embedded simulator.',
    });
  }
  return { baseUrl, apiKey };
}

function resolveBaseUrl(value: string): string {
  const trimmed = value.trim().replace(/\/+$/, '');
  let parsed: URL | undefined;
  try {
    parsed = new URL(trimmed);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new RunnerError('USAGE', `Invalid base URL "${trimmed}": expected an http(s) URL`, {
      hint: `Pass --base-url or MEDIAGEN_BASE_URL like ${DEFAULT_BASE_URL}`,
    });
  }
  return trimmed;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
