import { readFile, rename, writeFile } from 'node:fs/promises';
import { RunnerError } from '../errors.js';

/** File name of the upload cache inside `<manifestDir>/.runner/`. */
export const UPLOAD_CACHE_FILE = 'uploads.json';

/** Content SHA-256 → the `publicUrl` an upload of those bytes returned; shared across runs. */
export interface UploadCache {
  get(sha256: string): string | undefined;
  /** Records a URL and persists the cache (temp file + rename, mode 0600). */
  set(sha256: string, publicUrl: string): Promise<void>;
  /** Forgets a URL the service no longer accepts, so the content is uploaded again. */
  delete(sha256: string): Promise<void>;
}

interface UploadCacheFile {
  version: 1;
  entries: Record<string, { publicUrl: string; uploadedAt: string }>;
}

/** Loads the cache at `path` (missing file: empty cache). */
export async function openUploadCache(path: string, options?: { now?: () => number }): Promise<UploadCache> {
  const now = options?.now ?? Date.now;
  const data = await loadCacheFile(path);
  let chain: Promise<void> = Promise.resolve();
  let sequence = 0;
  const persist = (): Promise<void> => {
    const text = `${JSON.stringify(data, null, 2)}\n`;
    const temp = `${path}.${process.pid}.${++sequence}.tmp`;
    const next = chain.then(async () => {
      await writeFile(temp, text, { mode: 0o600 });
      await rename(temp, path);
    });
    chain = next.catch(() => undefined);
    return next;
  };
  return {
    get: (sha256) => data.entries[sha256]?.publicUrl,
    set(sha256, publicUrl) {
      data.entries[sha256] = { publicUrl, uploadedAt: new Date(now()).toISOString() };
      return persist();
    },
    delete(sha256) {
      if (data.entries[sha256] === undefined) return Promise.resolve();
      delete data.entries[sha256];
      return persist();
    },
  };
}

/** An in-memory cache (tests, `--no-state`). */
export function createMemoryUploadCache(initial?: Record<string, string>): UploadCache {
  const entries = new Map(Object.entries(initial ?? {}));
  return {
    get: (sha256) => entries.get(sha256),
    set(sha256, publicUrl) {
      entries.set(sha256, publicUrl);
      return Promise.resolve();
    },
    delete(sha256) {
      entries.delete(sha256);
      return Promise.resolve();
    },
  };
}

async function loadCacheFile(path: string): Promise<UploadCacheFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, entries: {} };
    throw error;
  }
  try {
    const value = JSON.parse(text) as Partial<UploadCacheFile>;
    if (value.version === 1 && typeof value.entries === 'object' && value.entries !== null) {
      return { version: 1, entries: value.entries };
    }
  } catch {
    // Reported below.
  }
  throw new RunnerError(
    'STATE_CORRUPT',
    `The upload cache ${path} is not a valid cache file (expected {"version":1,"entries":{...}}).`,
    {
      hint: `Delete ${path}; local files will be uploaded again once.`,
    },
  );
}
