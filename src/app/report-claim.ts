import type { ResultsStore } from '../results/results-store.js';
import {
  checkOutputClaim,
  displayStateUrl,
  locateRunJournal,
  type OutputOwner,
  type RunAddress,
} from '../state/index.js';
import { checkBucketClaim } from './bucket-claim.js';

/**
 * Refuses (exit 2) to put a run's page into an output folder or bucket prefix that another run claimed
 * (#31.3 for `runner report`). Found playing "a machine killed mid-run": `runner report` with a folder
 * state of the same pipeline and run id as the team's (state in PostgreSQL) put a page of 24 pending
 * jobs over the team's report.html of 25 done ones. Reads the claim only: a report never writes one.
 */
export async function checkReportTarget(
  dir: string,
  bucket: ResultsStore | undefined,
  address: RunAddress,
): Promise<void> {
  const owner = await ownerOf(address);
  if (bucket !== undefined) await checkBucketClaim(bucket, owner);
  else await checkOutputClaim(dir, owner);
}

/**
 * The run as the claim of its apply names it (`checkRunOutputDir`): its state folder as the folder
 * backend finds it (`<root>/<pipeline>/<run>/`, or an earlier release's flat `--state-dir`), or its
 * database's URL as shown.
 */
async function ownerOf(address: RunAddress): Promise<OutputOwner> {
  const { pipeline, runId, stateUrl } = address;
  if (stateUrl === undefined) return { pipeline, runId, stateDir: (await locateRunJournal(address)).dir };
  return { pipeline, runId, stateDir: displayStateUrl(stateUrl), stateUrl };
}
