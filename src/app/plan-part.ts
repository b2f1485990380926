import { createFileInfoReader } from '../catalog/read-file-info.js';
import { streamJobs, type ExpandContext } from '../manifest/expand-jobs.js';
import { entriesFrom } from '../manifest/job-positions.js';
import type { PositionRange } from '../manifest/expand-matrix.js';
import { replayJobs } from '../manifest/replay-jobs.js';
import type { LoadedManifest, Manifest } from '../manifest/types.js';
import type { CostOptions } from '../plan/classify-job.js';
import type { JobTable } from '../plan/job-table.js';
import { renderTableJson } from '../plan/render-report-json.js';
import { NO_TARGETING } from '../plan/select-jobs.js';
import { streamPlan } from '../plan/stream-plan.js';
import type { TallyPart } from '../plan/tally-part.js';
import type { Model } from '../service/types.js';
import { utf8Batches } from '../utf8-batches.js';

/** What a plan's part needs, as plain data (`workerData`): nothing is read again from disk but local files. */
export interface PartInput {
  file: string;
  dir: string;
  /** The manifest the main thread loaded (not read again: the file may have changed since). */
  manifest: Manifest;
  expand: ExpandContext;
  /** This part's jobs; the jobs before it are the main thread's. */
  range: PositionRange;
  catalog: readonly Model[];
  /** Without a previous state (a split plan has none). */
  costOptions: CostOptions;
}

/**
 * A part's answer: its tally, or that it is not clean (an issue of its own, or a duplicate id or ids
 * equal but for case anywhere in the plan), in which case the plan is made again on one thread,
 * whose issues are the ones reported.
 */
export type PartOutcome = { clean: true; part: TallyPart } | { clean: false };

/** A planned part: its outcome, then its rows written as the report's JSON when the main thread asks. */
export interface PlannedPart {
  outcome: PartOutcome;
  /** The rows' JSON lines (see `PartRows.json`), in UTF-8 batches. */
  json(covered: Uint8Array | undefined, paramsRefs: Uint32Array): Iterable<Buffer>;
}

/**
 * The jobs at positions `range` of a manifest expanded, checked, priced and tallied as `runner plan`
 * does all of them (`streamPlan`), on a worker thread (`plan-part-worker.ts`). The ids of the jobs
 * before the range are rendered too (not the jobs), so the whole plan's ids are checked here, off
 * the main thread: a duplicate across the parts makes the part not clean.
 */
export async function planPart(input: PartInput): Promise<PlannedPart> {
  const { file, dir, manifest, range, expand } = input;
  // Positions are only asked for the issues of a part that is not clean, which are never shown.
  const locate = () => ({ file, line: 1, col: 1 });
  const loaded: LoadedManifest = { file, dir, manifest, locate };
  const stream = streamJobs(loaded, expand, range);
  const result = await streamPlan({
    stream,
    loadIssues: [],
    varIssues: [],
    targeting: NO_TARGETING,
    getCatalog: () => Promise.resolve(input.catalog),
    catalogContext: {
      locate,
      manifestDir: dir,
      fileInfo: createFileInfoReader(),
      checkImageEndpointModel: true,
    },
    costOptions: input.costOptions,
    // Its rows read their prompts back from the same range's jobs.
    replay: replayJobs(loaded, expand, range),
  });
  const notClean: PlannedPart = { outcome: { clean: false }, json: () => [] };
  if (!result.ok || result.issues.length > 0) return notClean;
  const table = result.tally.finish(
    { pipeline: manifest.name, manifestFile: file, warnings: [] },
    { subscription: 'unknown' },
  ).jobList as JobTable;
  if (table.length !== range.end - range.start) return notClean;
  // The ids of the jobs before this part, after its own: the index then holds the whole plan's.
  const ids = stream.ids!;
  const positions = entriesFrom(loaded, 0);
  for (const job of replayJobs(loaded, expand, { start: 0, end: range.start })) {
    const { specIndex, rawIndex } = positions.next().value!;
    ids.add(job.id, specIndex, rawIndex);
  }
  if (ids.reportIds().length > 0) return notClean;
  return {
    outcome: { clean: true, part: result.tally.part() },
    json: (covered, paramsRefs) => {
      if (covered !== undefined) covered.forEach((flag, index) => flag === 1 && table.setCovered(index));
      const remapped: JobTable = { ...table, paramsRefAt: (index) => paramsRefs[table.paramsRefAt(index)]! };
      return utf8Batches(renderTableJson(remapped));
    },
  };
}
