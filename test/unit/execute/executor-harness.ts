import { join } from 'node:path';
import type { ExecutionEvent, ExecutionSummary } from '../../../src/execute/events.js';
import { executePlan } from '../../../src/execute/executor.js';
import type { ExecuteDeps, ExecuteOptions, ExecuteRun } from '../../../src/execute/options.js';
import type { JobKind } from '../../../src/kinds/types.js';
import type { Plan } from '../../../src/plan/types.js';
import type { PlannedJob } from '../../../src/manifest/planned-job.js';
import type { ServiceClient } from '../../../src/service/service-client.js';
import type { JobState } from '../../../src/state/job-state.js';
import { openJournal } from '../../../src/state/backends/folder/journal.js';
import { replayRunJournal } from '../../../src/state/backends/folder/replay-run-journal.js';
import { writeSnapshot } from '../../../src/state/backends/folder/snapshot-file.js';
import { createMemoryUploadCache } from '../../../src/state/upload-cache.js';
import { testRun } from '../../run-state.js';
import { createFakeClock, createFakeService, type FakeService } from './fake-service.js';

/** A job as the planner makes it: 1 credit, its payload hash derived from its prompt. */
export function plannedJob(
  id: string,
  prompt: string,
  kind: JobKind = 'image',
  extra: Partial<PlannedJob> = {},
): PlannedJob {
  return {
    id,
    kind,
    model: kind === 'image' ? 'chatgpt-image-sangtao' : 'video-model',
    prompt,
    params: {},
    estimatedCredits: 1,
    payloadHash: `hash-${prompt}`,
    source: { matrixValues: {}, specIndex: 0, origins: {} } as unknown as PlannedJob['source'],
    ...extra,
  };
}

export function makePlan(jobs: PlannedJob[], budget?: number): Plan {
  return {
    pipeline: 'pipe',
    manifestFile: 'm.yaml',
    jobs,
    warnings: [],
    ...(budget === undefined ? {} : { budget }),
  };
}

/** The pipeline and run every harness run journals under: what idempotency keys are derived from. */
export const HARNESS_RUN = { pipeline: 'pipe', runId: 'run-1' } as const;

export interface ExecutorHarness {
  service: FakeService;
  clock: ReturnType<typeof createFakeClock>;
  /** Every event of every run, in order. */
  events: ExecutionEvent[];
  journalPath: string;
  /** One `runner apply`: the journal replayed, the plan executed, the journal closed. */
  run(
    plan: Plan,
    options?: Partial<ExecuteOptions>,
    signal?: AbortSignal,
    /** The replayed state to resume from. @default `state()` */
    state?: Map<string, JobState>,
  ): Promise<ExecutionSummary>;
  /** The state the journal replays to now, as apply reads it (from a snapshot, when one was written). */
  state(): Promise<Map<string, JobState>>;
  /** Writes the state snapshot of the journal as it is now, as the end of an apply does. */
  snapshot(): Promise<void>;
}

/**
 * The executor against the in-memory fake service on a fake clock, journaling to `dir`: runs resume
 * from the journal like successive applies. Results download to `dir/out` unless options say otherwise.
 */
export function createExecutorHarness(
  dir: string,
  setup: {
    client?: ServiceClient;
    clock?: ReturnType<typeof createFakeClock>;
    readOtherRuns?: ExecuteDeps['readOtherRuns'];
    /** The state lock, as apply passes it. */
    lock?: ExecuteRun['lock'];
  } = {},
): ExecutorHarness {
  const service = createFakeService();
  const clock = setup.clock ?? createFakeClock();
  const events: ExecutionEvent[] = [];
  const journalPath = join(dir, 'journal.jsonl');
  const uploadCache = createMemoryUploadCache();
  const state = async () => (await replayRunJournal(journalPath)).replay.jobs;
  return {
    service,
    clock,
    events,
    journalPath,
    state,
    async snapshot() {
      const reading = await replayRunJournal(journalPath);
      await writeSnapshot(journalPath, {
        position: reading.end,
        jobs: reading.replay.jobs,
        meta: reading.checkpoint,
        at: clock.now(),
      });
    },
    async run(plan, options = {}, signal = new AbortController().signal, resumeFrom) {
      const journal = await openJournal(journalPath, { clock });
      try {
        return await executePlan(
          plan,
          {
            client: setup.client ?? service.client,
            run: testRun({
              journal,
              jobs: resumeFrom ?? (await state()),
              uploadCache,
              ...(setup.lock === undefined ? {} : { lock: setup.lock }),
            }),
            clock,
            random: () => 0.5,
            ...(setup.readOtherRuns === undefined ? {} : { readOtherRuns: setup.readOtherRuns }),
            onEvent: (event) => events.push(event),
            signal,
          },
          {
            runId: HARNESS_RUN.runId,
            pollIntervalMs: [10, 20],
            firstPollAfterMs: 5,
            retry: { backoffMs: 1 },
            download: true,
            outputDir: join(dir, 'out'),
            ...options,
          },
        );
      } finally {
        await journal.close();
      }
    },
  };
}
