import type { ExecuteRun } from '../src/execute/options.js';
import { createMemoryUploadCache } from '../src/state/upload-cache.js';

/**
 * A run's state as `executePlan` takes it (`ExecuteDeps.run`), from the parts a test has: a journal,
 * and what else it gives (replayed jobs, a lock, snapshots). No jobs and a fresh in-memory upload
 * cache unless given. A test on a store's opened run passes its `RunState` whole instead.
 */
export function testRun(parts: Pick<ExecuteRun, 'journal'> & Partial<ExecuteRun>): ExecuteRun {
  return { jobs: new Map(), uploadCache: createMemoryUploadCache(), ...parts };
}
