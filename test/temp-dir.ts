import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/** A fresh temporary folder per test, removed after it; call once at the top of a test file. */
export function useTempDir(prefix: string): { readonly path: string } {
  let path = '';
  beforeEach(async () => {
    path = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    await rm(path, { recursive: true, force: true });
  });
  return {
    get path() {
      return path;
    },
  };
}
