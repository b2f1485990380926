import { UsageError } from '../errors.js';
import { validateManifestOffline } from '../manifest/validate-manifest.js';
import {
  breakLease,
  inspectLease,
  parseStateUrl,
  pullRunState,
  pushRunState,
  type LeaseView,
} from '../state/index.js';
import type { CommandContext } from './context.js';
import type { Outcome } from './outcome.js';
import type { StateCommandOptions } from './state-options.js';
import { todayUtc } from './prepare-plan.js';
import type { RenderIssues } from './views.js';
import { readableUtcTime } from '../readable-time.js';

/** The actions of `runner state` that {@link runStateMove} does. */
export const STATE_MOVE_ACTIONS: ReadonlySet<string> = new Set(['push', 'pull', 'lease']);

/**
 * `runner state <push|pull|lease> FILE`: move a run's state between its folder and PostgreSQL
 * (`--state`), or inspect (`--break`: end) the run's lease in PostgreSQL.
 */
export async function runStateMove(
  ctx: CommandContext,
  action: string,
  manifestFile: string,
  options: StateCommandOptions,
  view: { issues: RenderIssues },
): Promise<Outcome> {
  const offline = await validateManifestOffline(manifestFile, { env: ctx.env, date: todayUtc() });
  const { loaded } = offline;
  if (loaded === undefined) {
    ctx.output.err(view.issues(offline.issues, manifestFile, ctx.output.style));
    return 'invalid-input';
  }
  const { stateUrl } = options.state;
  if (stateUrl === undefined || stateUrl === '') {
    throw new UsageError(`runner state ${action} needs the database: --state postgres://user@host:port/db.`, {
      hint: 'Or set RUNNER_STATE_URL.',
    });
  }
  const where = {
    manifestFile,
    pipeline: loaded.manifest.name,
    runId: options.runId,
    ...stateDirOf(options.state.stateDir),
    stateUrl,
    // A create in flight of a runner whose lease just ended is waited for before the copy (#31.9).
    onWait: (message: string) => ctx.output.err(message),
  };
  const { display } = parseStateUrl(stateUrl);
  const run = `run "${where.runId}" of pipeline "${where.pipeline}"`;
  if (action === 'push') {
    const count = await pushRunState(where);
    ctx.output.out(
      `Pushed ${run}: ${count} records into ${display}. Apply it with --state from now on; the folder was left as it was.`,
    );
    return 'done';
  }
  if (action === 'pull') {
    const count = await pullRunState(where);
    ctx.output.out(`Pulled ${run}: ${count} records from ${display} into its folder.`);
    return 'done';
  }
  const lease = await inspectLease(stateUrl, where);
  if (options.json) {
    ctx.output.out(JSON.stringify({ schemaVersion: 1, lease: lease ?? null }, null, 2));
  } else if (lease === undefined) {
    ctx.output.out(`No runner ever applied ${run} in ${display}.`);
  } else {
    ctx.output.out(describeLease(run, lease));
  }
  if (options.break) {
    const broken = await breakLease(stateUrl, where);
    ctx.output.out(
      broken
        ? `Broke the lease: its holder's next write is refused and it stops before its next create; the next apply takes the run over and follows its open jobs.`
        : 'No live lease to break.',
    );
  }
  return 'done';
}

/**
 * `runner state lease`'s line: whether the lease is held, by whom, and when it was taken and ends, to
 * the second (a lease lasts seconds: `RUNNER_LEASE_TTL_MS`); `--json` keeps the ISO times.
 */
export function describeLease(run: string, lease: LeaseView): string {
  const state = lease.live ? 'held' : lease.released ? 'released' : 'expired';
  const at = (iso: string) => readableUtcTime(iso, { seconds: true });
  return `Lease on ${run}: ${state}; holder ${lease.holder}, token ${lease.token}, taken ${at(lease.acquiredAt)}, ${lease.live ? 'expires' : 'ended'} ${at(lease.expiresAt)}.`;
}

function stateDirOf(stateDir: string | undefined): { stateDir?: string } {
  return stateDir === undefined ? {} : { stateDir };
}
