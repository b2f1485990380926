import { describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../src/state/backends/postgres/postgres-store.js';
import { pgAvailable } from '../pg-cluster.js';
import { usePgWorkFolder } from './pg-work-folder.js';

/**
 * The lease's heartbeat, `verify()` before each create and the journal's appends share one connection:
 * node-postgres deprecates a statement sent while another runs, and apply printed its
 * DeprecationWarning (#31.15). Statements on one connection go one at a time.
 */
describe.runIf(pgAvailable())('one statement at a time on a state connection', () => {
  const { cluster, address } = usePgWorkFolder('runner-pg-one-statement-', { leaseTtlMs: 300 });

  it('appends, verifies and heartbeats together without a node-postgres deprecation warning', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    const store = createPostgresStore(await cluster().createDatabase());
    // Heartbeats every 100 ms while the records are written.
    const state = await store.openRun(address());
    try {
      const writes: Promise<unknown>[] = [];
      for (let n = 1; n <= 150; n++) {
        const id = `j${n}`;
        writes.push(
          state.journal.append({ type: 'intent', id, attempt: 1, payloadHash: 'h', idempotencyKey: id }),
          state.lock.verify(),
        );
      }
      await Promise.all(writes);
      await new Promise((resolve) => setImmediate(resolve));
      expect(state.journal.position()?.lines).toBe(151);
      expect(warnings.filter((text) => /already executing a query/.test(text))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await state.close();
    }
  });
});
