import { UsageError } from '../errors.js';
import { readableUtcTime } from '../readable-time.js';
import type { JournalRecord } from '../state/index.js';

type RunRecord = Extract<JournalRecord, { type: 'run' }>;

/**
 * A run pays from one account (#31.7): a teammate finishing it with their own key re-sent an
 * unanswered create on their account (paid twice) while the first account's jobs answered 404 there.
 * The account of the latest apply that recorded one (`accountOfKey`: a hash, never the key) must be
 * this apply's, else a usage error (exit 2) before anything is sent.
 */
export function refuseOtherAccount(
  runs: readonly RunRecord[],
  account: string | undefined,
  run: { pipeline: string; runId: string; where: string },
): void {
  if (account === undefined) return;
  const recorded = runs.findLast((record) => record.account !== undefined);
  if (recorded?.account === undefined || recorded.account === account) return;
  throw new UsageError(
    `Run "${run.runId}" of pipeline "${run.pipeline}" in ${run.where} pays from another account (account ${recorded.account}, recorded by the apply of ${readableUtcTime(recorded.at)}); this apply's API key is of account ${account}. Jobs created on one account cannot be followed or re-sent from another: they answer 404 there, and a create whose answer was lost would be paid again. Nothing was created.`,
    {
      hint: 'Apply the run with the API key it was started with (MEDIAGEN_API_KEY or --api-key-file), or give this apply its own --run id.',
    },
  );
}
