import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The cache folder of every runner the tests start (`RUNNER_CACHE_DIR`), so no test writes into the
 * user's own cache folder. Shared by all tests and runs: the code cache is safe to share between
 * processes, and the tests that need an empty one make their own.
 */
export const testCacheEnv = { RUNNER_CACHE_DIR: join(tmpdir(), 'mediagen-runner-test-cache') } as const;
