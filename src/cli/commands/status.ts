import { ExitCode } from '../../errors.js';
import { validateManifestOffline } from '../../manifest/validate-manifest.js';
import { replayJournal } from '../../state/replay.js';
import { readJournalText, resolveStateDir } from '../../state/state-dir.js';
import { buildStatusView } from '../../state/status-view.js';
import type { CommandContext } from '../context.js';
import { todayUtc } from '../prepare-plan.js';
import { readSecretGuard } from '../read-secrets.js';
import { renderIssues } from '../render/issues.js';
import { renderStatus } from '../render/status.js';
import { readRunId, readStateDir } from '../run-options.js';

/**
 * `runner status FILE`: every job of a run from its state journal, read-only (no lock, no network).
 * Jobs of the manifest that never ran show as pending.
 */
export async function runStatus(ctx: CommandContext, args: string[], options: Record<string, unknown>) {
  const [manifestFile = ''] = args;
  const offline = await validateManifestOffline(manifestFile, {
    env: ctx.env,
    date: todayUtc(),
    secrets: await readSecretGuard(ctx),
  });
  const { loaded } = offline;
  if (loaded === undefined) {
    ctx.output.err(renderIssues(offline.issues, manifestFile, ctx.output.style));
    return ExitCode.InvalidInput;
  }
  const stateDir = resolveStateDir({
    manifestFile,
    pipeline: loaded.manifest.name,
    runId: readRunId(options),
    ...readStateDir(options),
  });
  const { jobs, warnings } = replayJournal(await readJournalText(stateDir));
  for (const warning of warnings) ctx.output.err(`${ctx.output.style.yellow('warning')} ${warning}`);
  const view = buildStatusView(
    jobs,
    offline.jobs.map((job) => job.id),
  );
  ctx.output.out(
    options.json === true
      ? JSON.stringify(view, null, 2)
      : renderStatus(view, ctx.output.style, ctx.output.width),
  );
  return ExitCode.Success;
}
