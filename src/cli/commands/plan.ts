import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { appendFile, writeFile } from 'node:fs/promises';
import { ExitCode, UsageError } from '../../errors.js';
import type { CostReport } from '../../plan/cost-report.js';
import { renderReportJsonChunks } from '../../plan/render-report-json.js';
import { renderReportMarkdown, renderReportText } from '../../plan/render-report.js';
import { replayJournal } from '../../state/replay.js';
import { readJournalText, resolveStateDir } from '../../state/state-dir.js';
import { connect } from '../connect.js';
import type { CommandContext } from '../context.js';
import { checkCost, DEFAULT_MAX_ATTEMPTS } from '../cost-check.js';
import { parseStringOption } from '../parse-options.js';
import { preparePlan, readPrepareOptions } from '../prepare-plan.js';
import { isGithubActions, renderAnnotations } from '../render/annotations.js';
import { renderIssues } from '../render/issues.js';
import { readRunId, readStateDir } from '../run-options.js';

const FORMATS = ['text', 'json', 'markdown'] as const;
type Format = (typeof FORMATS)[number];

/**
 * `runner plan FILE`: the dry-run cost report. Exit 0 when it fits, 3 when it needs more than the
 * available credit or the budget, 2 on invalid input. Creates nothing, spends nothing.
 */
export async function runPlan(ctx: CommandContext, args: string[], options: Record<string, unknown>) {
  const [manifestFile = ''] = args;
  const format = (parseStringOption(options.format) ?? 'text') as Format;
  if (!FORMATS.includes(format)) {
    throw new UsageError(`--format expects one of ${FORMATS.join(', ')}, received "${format}".`);
  }
  const catalogFile = typeof options.catalog === 'string' ? options.catalog : undefined;
  const offline = options.offline === true;
  if (offline && catalogFile === undefined) {
    throw new UsageError('--offline needs --catalog FILE (save one with `runner models --json > FILE`).');
  }
  const connection = offline ? undefined : await connect(ctx);
  try {
    const prepared = await preparePlan(ctx, readPrepareOptions(manifestFile, options), () => {
      if (connection === undefined) throw new Error('offline plan without a catalog');
      return connection.client.listModels();
    });
    if (isGithubActions(ctx.env)) {
      for (const line of renderAnnotations(prepared.issues, manifestFile)) ctx.output.err(line);
    }
    if (!prepared.ok) {
      ctx.output.err(renderIssues(prepared.issues, manifestFile, ctx.output.style));
      return ExitCode.InvalidInput;
    }
    const { manifest } = prepared.loaded;
    const stateDir = resolveStateDir({
      manifestFile,
      pipeline: manifest.name,
      runId: readRunId(options),
      ...readStateDir(options),
    });
    const previousJobs = replayJournal(await readJournalText(stateDir)).jobs;
    const report = await checkCost({
      plan: prepared.plan,
      catalog: prepared.catalog,
      maxAttempts: manifest.retry?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      previousJobs,
      ...(connection === undefined ? {} : { client: connection.client }),
    });
    await emitReport(ctx, report, format, typeof options.out === 'string' ? options.out : undefined);
    return report.verdict.status === 'fits' ? ExitCode.Success : ExitCode.Credits;
  } finally {
    await connection?.close();
  }
}

async function emitReport(
  ctx: CommandContext,
  report: CostReport,
  format: Format,
  outFile: string | undefined,
) {
  const { output } = ctx;
  if (format === 'json') {
    // In pieces: a 100,000-job report is ~30 MB of JSON, and one string of it doubles peak memory.
    const file = outFile === undefined ? undefined : createWriteStream(outFile);
    for (const chunk of renderReportJsonChunks(report)) {
      // Wait for pipes to drain, or the pieces pile up in memory all the same.
      if (!output.stdout.write(chunk)) await once(output.stdout, 'drain');
      if (file !== undefined && !file.write(chunk)) await once(file, 'drain');
    }
    output.stdout.write('\n');
    if (file !== undefined)
      await new Promise<void>((resolve, reject) => file.end('\n', () => resolve()).on('error', reject));
  } else {
    const rendered =
      format === 'markdown'
        ? renderReportMarkdown(report)
        : renderReportText(report, { color: output.color, width: output.width });
    output.out(rendered);
    if (outFile !== undefined) {
      const plain = format === 'text' ? renderReportText(report, { color: false, width: 100 }) : rendered;
      await writeFile(outFile, plain.endsWith('\n') ? plain : `${plain}\n`);
    }
  }
  // GitHub Actions shows this file on the run's summary page.
  const summaryFile = ctx.env.GITHUB_STEP_SUMMARY;
  if (summaryFile !== undefined && summaryFile !== '') {
    await appendFile(summaryFile, `${renderReportMarkdown(report)}\n`);
  }
}
