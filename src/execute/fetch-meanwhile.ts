import type { PlannedJob } from '../manifest/planned-job.js';
import { type JobState, summarizeJob } from '../state/index.js';
import type { ExecutionContext } from './context.js';
import { downloadResultsSafely, type FetchedEarly, isAllStoredHere } from './fetch-lacking.js';

/** Where a shared run's other machines' saved results are learned from (`RunCoordination`). */
export interface OthersSaved {
  readOthersSavedSince(cursor: string | undefined): Promise<{ jobs: Map<string, JobState>; cursor: string }>;
}

/** Another machine's results fetched at once while this one runs its share: its own come first. */
const FETCHES_AT_ONCE = 2;
/** How often the run's records are looked at: as often as jobs are polled, within these bounds. */
const LOOK_MIN_MS = 250;
const LOOK_MAX_MS = 2_000;

/** A fetch of the others' results running beside this machine's share of the run. */
export interface FetchMeanwhile {
  /** Stops looking, waits for the fetches under way, and says what each fetched job gave. */
  stop(): Promise<Map<string, FetchedEarly>>;
}

/**
 * On a run several machines apply at once (#30.2: each machine's output holds the whole run), fetches
 * the results the other machines save while this one runs its own share, instead of all of them after
 * its last job: a 3-machine run's tail was each machine fetching the two others' 133 results at the end
 * (bench/README.md). Downloads are not jobs: no slot is taken, nothing is created, and a fetch is the
 * one the end of the run would make (`downloadResults` with `verify`: size, SHA-256, media checks, and
 * a result recorded for this machine only once it is saved). At most {@link FETCHES_AT_ONCE} at once,
 * and a new one starts only while none of this process's own downloads waits for its turn
 * (`ownWaiting`). Jobs this process claimed (`isOwn`) are left to it. What cannot be read or fetched
 * here is left to the end of the run, which reads the whole run again and reports it.
 *
 * Only for a results store on this machine: machines writing to one bucket prefix share their results
 * already, and a look per job would only cost requests.
 */
export function fetchOthersResultsMeanwhile(
  ctx: ExecutionContext,
  others: OthersSaved,
  input: {
    planned: readonly PlannedJob[];
    isOwn: (id: string) => boolean;
    ownWaiting: () => boolean;
  },
): FetchMeanwhile {
  const fetched = new Map<string, FetchedEarly>();
  if (!ctx.options.download || ctx.results?.store.kind !== 'folder')
    return { stop: () => Promise.resolve(fetched) };
  const planned = new Map(input.planned.map((job) => [job.id, job]));
  const stopped = new AbortController();
  const signal = AbortSignal.any([stopped.signal, ctx.downloadSignal]);
  const waiting: { job: PlannedJob; state: JobState }[] = [];
  const seen = new Set<string>();
  const running = new Set<Promise<void>>();
  const [pollMin] = ctx.options.pollIntervalMs;
  const lookEveryMs = Math.min(LOOK_MAX_MS, Math.max(LOOK_MIN_MS, pollMin));

  const fetchOne = async (job: PlannedJob, state: JobState): Promise<void> => {
    const attempt = state.attempts.at(-1)?.attempt;
    if (attempt === undefined || input.isOwn(job.id)) return;
    // As the end of the run does with what it reads: the job's state is the other machine's now.
    ctx.jobs.set(job.id, state);
    if (await isAllStoredHere(ctx, state)) {
      fetched.set(job.id, { attempt, downloads: { files: fileKeys(state), failures: 0 } });
      return;
    }
    fetched.set(job.id, { attempt, downloads: await downloadResultsSafely(ctx, job, { verify: true }) });
  };
  const startWaiting = () => {
    while (!signal.aborted && running.size < FETCHES_AT_ONCE && !input.ownWaiting()) {
      const next = waiting.shift();
      if (next === undefined) return;
      const task: Promise<void> = fetchOne(next.job, next.state)
        .catch(() => undefined)
        .finally(() => {
          running.delete(task);
          startWaiting();
        });
      running.add(task);
    }
  };
  const look = async (cursor: string | undefined): Promise<string | undefined> => {
    const read = await others.readOthersSavedSince(cursor);
    for (const [id, state] of read.jobs) {
      const job = planned.get(id);
      if (job === undefined || seen.has(id) || input.isOwn(id)) continue;
      const summary = summarizeJob(state);
      // Done with every result saved by its machine: one not complete yet comes again with its next save.
      if (summary.status !== 'done' || !summary.complete) continue;
      seen.add(id);
      waiting.push({ job, state });
    }
    return read.cursor;
  };
  const loop = (async () => {
    let cursor: string | undefined;
    while (!signal.aborted) {
      try {
        await ctx.clock.sleep(lookEveryMs, signal);
        cursor = await look(cursor);
      } catch {
        // Stopped, or the run's records could not be read or checked: the end of the run reads them
        // all again and says what is wrong.
        return;
      }
      startWaiting();
    }
  })();
  return {
    async stop() {
      stopped.abort();
      await loop;
      await Promise.all(running);
      return fetched;
    },
  };
}

/** The job's recorded files of its latest attempt (what `downloadResults` returns when all is here). */
function fileKeys(state: JobState): string[] {
  const last = state.attempts.at(-1);
  return state.downloads.filter((download) => last?.resultUrls.includes(download.url)).map((d) => d.file);
}
