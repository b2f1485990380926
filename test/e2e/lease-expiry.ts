import { withPgClient } from '../pg-cluster.js';

/**
 * Waits until every unreleased lease in the database at `url` has run out by the database's own
 * clock: a state, not a guess of time. Call it only once its holders can no longer renew (killed,
 * SIGSTOP'd, cut off), or it waits on a live lease that keeps moving. No tables yet: nothing to wait for.
 */
export async function waitForLeasesToExpire(url: string): Promise<void> {
  for (;;) {
    const ms = await withPgClient(url, async (client) => {
      try {
        const { rows } = await client.query<{ ms: number }>(
          `SELECT greatest(0, extract(epoch FROM max(expires_at) - clock_timestamp()) * 1000)::float8 AS ms
             FROM runner_leases WHERE NOT released`,
        );
        return rows[0]?.ms ?? 0;
      } catch (error) {
        if ((error as { code?: string }).code === '42P01') return 0;
        throw error;
      }
    });
    if (ms <= 0) return;
    await new Promise((resolve) => setTimeout(resolve, ms + 50));
  }
}
