import type { ResultFiles } from '../../src/results/result-files.js';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { ExecutionEvent, ExecutionSummary } from '../../src/execute/events.js';
import { executePlan } from '../../src/execute/executor.js';
import type { ExecuteDeps, ExecuteOptions } from '../../src/execute/options.js';
import type { JobKind } from '../../src/kinds/types.js';
import type { Plan } from '../../src/plan/types.js';
import type { PlannedJob } from '../../src/manifest/planned-job.js';
import { createServiceClient } from '../../src/service/client.js';
import type { ServiceClient } from '../../src/service/service-client.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/index.js';
import type { JobState } from '../../src/state/job-state.js';
import { openJournal } from '../../src/state/backends/folder/journal.js';
import { replayJournal } from '../../src/state/replay.js';
import type { UploadCache } from '../../src/state/upload-cache.js';
import { testRun } from '../run-state.js';

/**
 * The executor against the simulator over real HTTP, for integration tests: a fresh folder, simulator
 * and client per test (closed after it), and `run`, which executes jobs with tiny poll intervals and
 * replays the journal it wrote, so a second `run` resumes the first.
 */
export interface ExecutorHarness {
  /** This test's folder: `journal.jsonl` and the downloads in `out/`. */
  readonly dir: string;
  startService(options?: SimulatorOptions): Promise<{ sim: Simulator; client: ServiceClient }>;
  run(
    service: ServiceClient,
    jobs: PlannedJob[],
    options?: Partial<ExecuteOptions>,
    extras?: RunExtras,
  ): Promise<RunResult>;
}

export interface RunExtras {
  signal?: AbortSignal;
  onEvent?: (event: ExecutionEvent) => void;
  uploadCache?: UploadCache;
  afterDownload?: ExecuteDeps['afterDownload'];
  /** Where the results go. @default the folder store of `out/` in the test's folder */
  results?: ResultFiles;
}

export interface RunResult {
  summary: ExecutionSummary;
  events: ExecutionEvent[];
  state: Map<string, JobState>;
  /** The most jobs open at once, counted from the executor's own events. */
  maxOpen: number;
}

/** Registers the per-test set-up and clean-up; call once at the top of a test file. */
export function useExecutorHarness(folderPrefix: string): ExecutorHarness {
  let dir = '';
  let sim: Simulator | undefined;
  let client: ServiceClient | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), folderPrefix));
  });
  afterEach(async () => {
    await client?.close();
    await sim?.close();
    client = undefined;
    sim = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  return {
    get dir() {
      return dir;
    },
    async startService(options = {}) {
      sim = await startSimulator({ timeScale: 0.002, seed: 7, ...options });
      client = createServiceClient({
        baseUrl: sim.baseUrl,
        apiKey: sim.apiKey,
        retry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 20 },
      });
      return { sim, client };
    },
    run: (service, jobs, options = {}, extras = {}) => runExecutor(dir, service, jobs, options, extras),
  };
}

async function runExecutor(
  dir: string,
  service: ServiceClient,
  jobs: PlannedJob[],
  options: Partial<ExecuteOptions>,
  extras: RunExtras,
): Promise<RunResult> {
  const journalPath = join(dir, 'journal.jsonl');
  const readState = async () => replayJournal(await readFile(journalPath, 'utf8').catch(() => '')).jobs;
  const journal = await openJournal(journalPath);
  const plan: Plan = { pipeline: 'it', manifestFile: join(dir, 'm.yaml'), jobs, warnings: [] };
  const events: ExecutionEvent[] = [];
  let open = 0;
  let maxOpen = 0;
  try {
    const summary = await executePlan(
      plan,
      {
        client: service,
        run: testRun({
          journal,
          jobs: await readState(),
          ...(extras.uploadCache === undefined ? {} : { uploadCache: extras.uploadCache }),
        }),
        clock: systemClock,
        signal: extras.signal ?? new AbortController().signal,
        ...(extras.afterDownload === undefined ? {} : { afterDownload: extras.afterDownload }),
        ...(extras.results === undefined ? {} : { results: extras.results }),
        onEvent(event) {
          events.push(event);
          if (event.type === 'job-created') maxOpen = Math.max(maxOpen, ++open);
          if (
            event.type === 'job-completed' ||
            event.type === 'job-failed' ||
            event.type === 'job-retry' ||
            event.type === 'job-deferred'
          ) {
            if (event.type !== 'job-failed' || event.failureKind !== undefined) open--;
          }
          extras.onEvent?.(event);
        },
      },
      {
        runId: 'it-run',
        pollIntervalMs: [10, 30],
        firstPollAfterMs: 20,
        retry: { backoffMs: 5 },
        download: true,
        outputDir: join(dir, 'out'),
        ...options,
      },
    );
    return { summary, events, state: await readState(), maxOpen };
  } finally {
    await journal.close();
  }
}

/** An image job as the planner makes it; its payload hash is derived from id and prompt. */
export function imageJob(id: string, prompt: string): PlannedJob {
  return {
    id,
    kind: 'image',
    model: 'chatgpt-image-sangtao',
    prompt,
    params: { format: 'png', resolution: '1K' },
    estimatedCredits: 4,
    payloadHash: createHash('sha256').update(`${id}:${prompt}`).digest('hex'),
    source: { matrixValues: {}, specIndex: 0, origins: {} } as unknown as PlannedJob['source'],
  };
}

/** A stock video job (no idempotency key at the service). */
export function videoJob(id: string, script: string): PlannedJob {
  const kind: JobKind = 'stock-video';
  return {
    ...imageJob(id, script),
    kind,
    model: 'stock-narrated',
    params: { script, duration: 1 },
    estimatedCredits: 8,
  };
}
