import { RunnerError } from '../errors.js';
import type { ResultsStore } from '../results/results-store.js';
import { readStoredWhole } from '../results/read-stored-whole.js';
import {
  judgeReadClaim,
  OUTPUT_CLAIM_FILE,
  outputClaimText,
  parseOutputClaim,
  type ClaimVerdict,
  type OutputOwner,
} from '../state/index.js';

/** A claim is a few hundred bytes; more is not one, and is not read whole. */
const MAX_CLAIM_BYTES = 64 * 1024;

/**
 * Whether the run may write into a bucket prefix (#31.3 for a bucket): the prefix holds the claim of
 * the run that writes there, `.runner-run.json` as in an output folder, judged by the same rule
 * (`judgeOutputClaim`). A run's lease fences its own writers, but not a run of the same pipeline and
 * run id whose state is elsewhere (a teammate's folder state beside the team's database): without the
 * claim it created the team's open jobs again and put its own results.json and report.html over the
 * team's. Throws the refusal (exit 2) before anything is paid; returns a warning when the run takes
 * the prefix over.
 */
export async function checkBucketClaim(
  bucket: ResultsStore,
  owner: OutputOwner,
  /** When the run first started, if it has: a claim by a copy of its state is its own. */
  runStart?: number,
): Promise<string | undefined> {
  const decision = await judgeBucketClaim(bucket, owner, runStart);
  return decision.verdict === 'take-over' ? decision.warning : undefined;
}

/**
 * Claims the prefix for the run before its first create: writes the claim unless the run's own is
 * there, then reads it back. A bucket has no exclusive create that every S3-compatible store keeps, so
 * of two runs claiming at once the last write wins, and the read-back refuses the other.
 */
export async function claimBucket(
  bucket: ResultsStore,
  owner: OutputOwner,
  runStart?: number,
): Promise<void> {
  if ((await judgeBucketClaim(bucket, owner, runStart)).verdict === 'mine') return;
  await bucket.writeWhole(OUTPUT_CLAIM_FILE, outputClaimText(owner), 'application/json');
  const after = await judgeReadClaim(await readBucketClaim(bucket), owner);
  if (after.verdict !== 'mine') {
    throw bucketRefusal(bucket.location, 'another run claimed it at the same time');
  }
}

/** The prefix's claim judged for this run; a refusal thrown, any other verdict returned. */
async function judgeBucketClaim(
  bucket: ResultsStore,
  owner: OutputOwner,
  runStart: number | undefined,
): Promise<Exclude<ClaimVerdict, { verdict: 'refuse' }>> {
  const decision = await judgeReadClaim(await readBucketClaim(bucket), owner, runStart);
  if (decision.verdict === 'refuse') throw bucketRefusal(bucket.location, decision.reason);
  return decision;
}

async function readBucketClaim(bucket: ResultsStore): Promise<OutputOwner | undefined> {
  const bytes = await readStoredWhole(bucket, OUTPUT_CLAIM_FILE, MAX_CLAIM_BYTES);
  if (bytes === undefined) return undefined;
  const claim = bytes === 'too-large' ? 'unreadable' : parseOutputClaim(bytes.toString('utf8'));
  if (claim === 'unreadable') {
    throw bucketRefusal(bucket.location, `its ${OUTPUT_CLAIM_FILE} cannot be read as a run's claim`);
  }
  return claim;
}

function bucketRefusal(location: string, reason: string): RunnerError {
  return new RunnerError(
    'INVALID_INPUT',
    `The output ${location} cannot be used by this run: ${reason}. Each run writes its own prefix, so that no run overwrites (or moves aside) another run's paid results. Nothing was created or paid.`,
    {
      hint: `Run it with the state that holds that run (the same --state or --state-dir), or give this run a prefix of its own (--output ${location}/<run>). To let this run replace those objects, delete ${location}/${OUTPUT_CLAIM_FILE} first.`,
    },
  );
}
