import { formatCredits, roundCredits } from '../plan/credits.js';
import type { ServiceClient } from '../service/service-client.js';
import { type JobState, sumBudgetedCredits } from '../state/index.js';

/**
 * The account's available credit read before an apply's first create and after its last answer,
 * held against what the run counted (issue #32.1): the runner counts what answers report (no less
 * than the catalog's price for a job charged to credits), and the balance is the service's own figure
 * of what it charged. A service that reports less than it charges is seen here, once per apply.
 */
export interface BalanceWatch {
  /**
   * Reads the balance again; a warning naming both figures when it fell by more than the run's
   * counted spending since the watch started (`spentTotal`: the run's whole spending now, as the
   * executor's summary gives it), else `undefined` (also when either balance could not be read).
   */
  check(spentTotal: number): Promise<string | undefined>;
}

/**
 * Starts a watch: reads the available credit now and what the run's state had counted (`jobs`, before
 * the executor changes it). `othersSpent`, on a run shared by machines, gives what the other processes
 * of the run spent since this one opened it (`RunCoordination.othersSpent`). A balance (or the others'
 * spending) that cannot be read leaves the watch silent: it warns, it never stops a run.
 */
export async function watchBalance(
  client: Pick<ServiceClient, 'getBalance'>,
  jobs: ReadonlyMap<string, JobState>,
  othersSpent?: () => Promise<number>,
): Promise<BalanceWatch> {
  const readAvailable = () => readOrUndefined(async () => (await client.getBalance()).availableCredit);
  let spentBefore = 0;
  for (const job of jobs.values()) spentBefore += sumBudgetedCredits(job);
  const before = await readAvailable();
  return {
    async check(spentTotal) {
      if (before === undefined) return undefined;
      const after = await readAvailable();
      if (after === undefined) return undefined;
      // Other machines on the run pay from the same account meanwhile: what they spent is the run's
      // spending too, not a sign that the service charged more than it said.
      const others = othersSpent === undefined ? 0 : await readOrUndefined(othersSpent);
      if (others === undefined) return undefined;
      return describeBalanceDrop({ before, after, counted: spentTotal - spentBefore + others });
    },
  };
}

/**
 * The warning when the available credit fell by more than `counted` (rounded as credits are, so
 * fractional costs do not warn of a rounding), else `undefined`.
 */
export function describeBalanceDrop(figures: {
  before: number;
  after: number;
  counted: number;
}): string | undefined {
  const { before, after } = figures;
  const fell = roundCredits(before - after);
  const counted = roundCredits(figures.counted);
  if (fell <= counted) return undefined;
  return `The available credit fell by ${formatCredits(fell)} credits during this apply (from ${formatCredits(before)} to ${formatCredits(after)}), more than the ${formatCredits(counted)} credits it counted: the service may charge more than its answers report, or the account was used meanwhile (another tool or person). Compare the account's usage with \`runner status\` before running more.`;
}

/** A figure the watch reads, or `undefined` when it cannot be read: the watch then stays silent. */
async function readOrUndefined(read: () => Promise<number>): Promise<number | undefined> {
  try {
    return await read();
  } catch {
    return undefined;
  }
}
