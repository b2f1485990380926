import { RunnerError } from '../errors.js';
import type { ReplayResult } from './replay.js';

/** Which pipeline and run a journal belongs to: written as its header line (format version 2). */
export interface JournalIdentity {
  pipeline: string;
  runId: string;
}

/**
 * Throws STATE_MISMATCH unless a replayed journal belongs to `identity`: its header (format 2), or
 * for a headerless journal of the first release its `run` records, must name this pipeline and run.
 */
export function checkJournalIdentity(
  replay: ReplayResult,
  identity: JournalIdentity,
  journalPath: string,
): void {
  const others = listJournalOwners(replay).filter((owner) => !isIdentity(owner, identity));
  if (others.length === 0) return;
  throw new RunnerError(
    'STATE_MISMATCH',
    `${journalPath} belongs to ${others.map(describeIdentity).join(', ')}, not to ${describeIdentity(identity)}. Nothing was created.`,
    {
      hint: 'Two pipeline names or run ids reduce to the same folder name, or the folder was copied: use another --run id, or move the folder away.',
    },
  );
}

/** The distinct pipeline/run pairs a journal names (its header, else its `run` records). */
export function listJournalOwners(replay: ReplayResult): JournalIdentity[] {
  const named =
    replay.header === undefined
      ? replay.runs.map((run) => ({ pipeline: run.pipeline, runId: run.runId }))
      : [replay.header];
  const owners = new Map<string, JournalIdentity>();
  for (const owner of named) owners.set(JSON.stringify([owner.pipeline, owner.runId]), owner);
  return [...owners.values()];
}

export function isIdentity(a: JournalIdentity, b: JournalIdentity): boolean {
  return a.pipeline === b.pipeline && a.runId === b.runId;
}

export function describeIdentity(identity: JournalIdentity): string {
  return `pipeline "${identity.pipeline}" run "${identity.runId}"`;
}
