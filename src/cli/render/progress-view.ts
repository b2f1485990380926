import { formatCredits } from '../../plan/credits.js';
import type { ExecutionEvent } from '../../execute/events.js';
import type { Output } from '../../app/output-sink.js';
import type { Style } from '../../text-style.js';
import { formatEventLine } from './event-line.js';
import type { ProgressModel } from './progress-model.js';
import { formatDuration, type ProgressSnapshot } from './progress-model.js';

/** Receives executor events and shows them; `finish` leaves the terminal clean. */
export interface ProgressReporter {
  onEvent(event: ExecutionEvent): void;
  /** A line of its own (e.g. what Ctrl-C does), printed above the live view without breaking it. */
  note(line: string): void;
  finish(): void;
}

const REDRAW_MS = 100;
const LISTED_OPEN_JOBS = 4;
const MAX_ID_WIDTH = 48;

/**
 * On a terminal: event lines scroll above a live block (counts, credits, ETA, open jobs) redrawn on
 * stderr. Without one: one line per event on stderr, nothing redrawn, so CI logs stay readable.
 */
export async function createProgressReporter(
  output: Output,
  model: ProgressModel,
  now: () => number = Date.now,
): Promise<ProgressReporter> {
  const doneSkips = groupDoneSkips(output.style);
  const print = (lines: readonly (string | undefined)[]) => {
    for (const line of lines) if (line !== undefined) output.err(line);
  };
  if (!output.interactive) {
    return {
      onEvent: (event) => {
        model.apply(event);
        if (!doneSkips.take(event)) print([doneSkips.flush(), formatEventLine(event, output.style)]);
      },
      note: (line) => print([doneSkips.flush(), line]),
      finish: () => print([doneSkips.flush()]),
    };
  }
  // log-update erases the block by the rows it takes once wrapped to the terminal's width (a counts
  // line wider than the terminal is two rows), not by its lines; the cursor stays shown: hiding it
  // would hook exit and signals (cli-cursor), beside apply's own Ctrl-C handling. Loaded only for a
  // terminal: the string-width it wraps with builds its emoji regex when loaded (~230 M instructions,
  // ~35 ms; bench/README.md), which a CI log need not pay.
  const { createLogUpdate } = await import('log-update');
  const live = createLogUpdate(output.stderr, { showCursor: true });
  let lastDraw = 0;
  let timer: NodeJS.Timeout | undefined;
  const draw = (final = false) => {
    timer = undefined;
    lastDraw = now();
    const snapshot = model.snapshot();
    // Once the run is over, jobs still pending will not run in this process: no ETA for them.
    if (final) delete snapshot.etaMs;
    live(renderLiveBlock(snapshot, output).join('\n'));
  };
  const scheduleDraw = () => {
    if (timer !== undefined) return;
    timer = setTimeout(() => draw(), Math.max(0, REDRAW_MS - (now() - lastDraw)));
    timer.unref();
  };
  /** Lines above the live block: it is cleared only when there is a line to print (no flicker). */
  const printAbove = (lines: readonly (string | undefined)[]) => {
    if (lines.every((line) => line === undefined)) return;
    live.clear();
    print(lines);
  };
  return {
    onEvent: (event) => {
      model.apply(event);
      if (!doneSkips.take(event)) printAbove([doneSkips.flush(), formatEventLine(event, output.style)]);
      scheduleDraw();
    },
    note: (line) => {
      printAbove([doneSkips.flush(), line]);
      scheduleDraw();
    },
    finish: () => {
      if (timer !== undefined) clearTimeout(timer);
      printAbove([doneSkips.flush()]);
      draw(true);
      live.done();
    },
  };
}

/**
 * Jobs done in an earlier apply are skipped with one event each, and a resumed run of 100,000 done jobs
 * printed 100,000 "skip" lines. Consecutive ones are held and told as one line when another line is
 * due (a single one keeps its own line, with its detail).
 */
export function groupDoneSkips(style: Style): {
  /** Holds the event when it is a job skipped as done; false for any other event. */
  take(event: ExecutionEvent): boolean;
  /** The line for the skips held since the last flush, if any. */
  flush(): string | undefined;
} {
  let first: Extract<ExecutionEvent, { type: 'job-skipped' }> | undefined;
  let lastId = '';
  let count = 0;
  return {
    take(event) {
      // A done job that still owes results keeps its own line: it is being downloaded (#20.8).
      if (event.type !== 'job-skipped' || event.reason !== 'done' || (event.owed ?? 0) > 0) return false;
      first ??= event;
      lastId = event.id;
      count++;
      return true;
    },
    flush() {
      if (first === undefined) return undefined;
      const line =
        count === 1
          ? formatEventLine(first, style)
          : `${style.dim('skip')}      ${count.toLocaleString('en-US')} jobs already done (${first.id} … ${lastId})`;
      first = undefined;
      count = 0;
      return line;
    },
  };
}

/** The live block: a counts line, then the open jobs with their progress. */
export function renderLiveBlock(snapshot: ProgressSnapshot, output: Pick<Output, 'style'>): string[] {
  const { counts, total } = snapshot;
  const { style } = output;
  const finished = counts.done + counts.failed;
  const parts = [
    style.bold(`${finished}/${total}`),
    style.green(`done ${counts.done}`),
    `running ${counts.running}`,
    `queued ${counts.queued}`,
    counts.failed > 0 ? style.red(`failed ${counts.failed}`) : `failed 0`,
    `pending ${counts.pending}`,
  ];
  if (counts.deferred > 0) parts.push(style.yellow(`deferred ${counts.deferred}`));
  if (counts.uncertain > 0) parts.push(style.yellow(`uncertain ${counts.uncertain}`));
  parts.push(`credits ${formatCredits(snapshot.creditsSpent)}`);
  if (snapshot.etaMs !== undefined) parts.push(`ETA ${formatDuration(snapshot.etaMs)}`);
  const lines = [parts.join(' · ')];
  const listed = snapshot.open.slice(0, LISTED_OPEN_JOBS);
  const idWidth = Math.min(MAX_ID_WIDTH, Math.max(0, ...listed.map((job) => job.id.length)));
  for (const job of listed) {
    const id = job.id.length > idWidth ? `${job.id.slice(0, idWidth - 1)}…` : job.id.padEnd(idWidth);
    const progress = job.progress === undefined ? '' : ` ${progressBar(job.progress)} ${job.progress}%`;
    lines.push(`  ${style.dim(job.state.padEnd(7))} ${id}${progress}`.trimEnd());
  }
  if (snapshot.open.length > LISTED_OPEN_JOBS) {
    lines.push(style.dim(`  … and ${snapshot.open.length - LISTED_OPEN_JOBS} more open`));
  }
  return lines;
}

function progressBar(percent: number, width = 20): string {
  const filled = Math.round((Math.min(100, Math.max(0, percent)) / 100) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}
