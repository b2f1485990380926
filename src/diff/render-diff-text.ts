import { formatCredits } from '../plan/credits.js';
import { formatTable, type Align } from '../plan/text-table.js';
import { createStyle, type Style } from '../text-style.js';
import type { CatalogSource, CostDiff, CreditDelta, ManifestDiff, Schedule } from './cost-diff.js';
import { describeChanges } from './describe-changes.js';
import { readableUtcTime } from '../readable-time.js';

/** Jobs listed per kind of change (added, removed, changed, renamed); the rest are counted. */
export const MAX_LISTED_DIFF_JOBS = 20;
/** Rows of the per axis value table per manifest; the rest are counted. */
const MAX_AXIS_ROWS = 20;

export interface DiffTextOptions {
  /** ANSI colors (a TTY without NO_COLOR). */
  color: boolean;
  /** Terminal columns; long ids are shortened to fit. @default 100 */
  width?: number;
  /** The two files as given, for the heading. */
  files?: { base: string; head: string };
}

/**
 * The cost diff for a terminal, in `runner plan`'s style: the total per run and per month, which
 * catalog each side used (and, when the prices differ, how much of the delta is a price change, not
 * a manifest change), then per manifest its figures, per model and per axis value, and its jobs.
 */
export function renderDiffText(diff: CostDiff, options: DiffTextOptions): string {
  const width = options.width ?? 100;
  const style = createStyle(options.color);
  const table = (headers: string[], rows: string[][], align: Align[]): string[] => {
    const [head = '', ...body] = formatTable(headers, rows, { align, maxWidth: width - 4 });
    return [`    ${style.bold(head)}`, ...body.map((line) => `    ${line}`)];
  };
  const files = options.files === undefined ? '' : ` ${options.files.base} → ${options.files.head}`;
  const lines = [`${style.bold('Cost diff')}${files}`, `Total per run: ${describeDelta(diff.total, style)}`];
  if (diff.totalPerMonth !== null) {
    const scheduled = diff.manifests.filter((manifest) => manifest.perMonth !== null).length;
    const of =
      scheduled === diff.manifests.length
        ? ''
        : ` (the ${scheduled} of ${diff.manifests.length} manifests with a schedule)`;
    lines.push(`Total per month: ${describeDelta(diff.totalPerMonth, style)}${of}`);
  }
  lines.push(...renderCatalogs(diff, style));
  for (const manifest of diff.manifests) lines.push('', ...renderManifest(manifest, style, table));
  if (diff.guardrails.length > 0) {
    lines.push('', style.bold('Guardrails'));
    for (const check of diff.guardrails) {
      const flag = check.limit === 'increase' ? '--fail-on-increase' : '--fail-on-increase-percent';
      const mark = check.crossed ? style.red('✗ crossed') : style.green('✓ within');
      lines.push(`  ${mark} ${flag} ${check.threshold}: ${check.message}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function renderCatalogs(diff: CostDiff, style: Style): string[] {
  const { catalogs } = diff;
  const lines = [`Catalogs: base ${describeCatalog(catalogs.base)}; head ${describeCatalog(catalogs.head)}`];
  if (catalogs.samePrices) {
    lines.push('Prices: the same on both sides for every model the plans use.');
    return lines;
  }
  const share =
    catalogs.priceDelta === undefined || catalogs.priceDelta === 0
      ? 'Part of the delta may be a price change, not a manifest change'
      : `${signed(catalogs.priceDelta)} credits per run of the delta are a price change, not a manifest change`;
  lines.push(style.yellow(`Prices changed between the two catalogs: ${share}.`));
  for (const change of catalogs.priceChanges) {
    lines.push(
      `  ${change.model}: ${change.base ?? '(not in the base catalog)'} → ${change.head ?? '(not in the head catalog)'}`,
    );
  }
  return lines;
}

function describeCatalog(source: CatalogSource): string {
  if (source.pricesHash === '') return 'none (no manifests)';
  const where =
    source.source === 'file'
      ? `file ${source.path ?? '(unnamed)'}${source.fallbackFor === undefined ? '' : ` (${source.fallbackFor} is missing on this side)`}`
      : `${source.source}${source.fetchedAt === undefined ? '' : ` fetched ${readableUtcTime(source.fetchedAt)}`}`;
  return `${where} (prices ${source.pricesHash.slice(0, 12) || 'unknown'})`;
}

function renderManifest(
  manifest: ManifestDiff,
  style: Style,
  table: (headers: string[], rows: string[][], align: Align[]) => string[],
): string[] {
  const mark = {
    added: style.green('added'),
    removed: style.red('removed'),
    changed: style.yellow('changed'),
    unchanged: style.dim('unchanged'),
  }[manifest.change];
  const describe = (given: Schedule | null): string =>
    given === null
      ? 'none'
      : given.label.endsWith('per month')
        ? given.label
        : `${given.label} (${given.runsPerMonth} runs a month)`;
  const before = manifest.scheduleBefore;
  const schedule =
    before === undefined
      ? manifest.schedule === null
        ? ''
        : `, ${describe(manifest.schedule)}`
      : before === null
        ? `, schedule added: ${describe(manifest.schedule)}`
        : manifest.schedule === null
          ? `, schedule removed (was ${describe(before)})`
          : `, schedule ${describe(before)} → ${describe(manifest.schedule)}`;

  const lines = [
    `${style.bold(manifest.path)} (${manifest.pipeline}): ${mark}${schedule}`,
    `  Per run: ${describeDelta(manifest.perRun, style)}`,
  ];
  if (manifest.perMonth !== null) lines.push(`  Per month: ${describeDelta(manifest.perMonth, style)}`);
  const { counts } = manifest;
  lines.push(
    `  Jobs: ${counts.base} → ${counts.head}: ${counts.added} added, ${counts.removed} removed, ${counts.changed} changed, ${counts.renamed} renamed, ${counts.unchanged} unchanged`,
  );
  if (manifest.change === 'unchanged') return lines;
  const moved = manifest.byModel.filter((group) => group.delta !== 0 || group.jobs.base !== group.jobs.head);
  if (moved.length > 0) {
    lines.push(`  ${style.bold('By model')}`);
    lines.push(
      ...table(
        ['Model', 'Jobs', 'Base', 'Head', 'Delta', '%'],
        moved.map((g) => [
          g.model,
          `${g.jobs.base} → ${g.jobs.head}`,
          formatCredits(g.base),
          formatCredits(g.head),
          signed(g.delta),
          percent(g.percent),
        ]),
        ['left', 'right', 'right', 'right', 'right', 'right'],
      ),
    );
  }
  const axes = manifest.byAxisValue.filter((group) => group.delta !== 0);
  if (axes.length > 0) {
    lines.push(`  ${style.bold('By axis value')}`);
    lines.push(
      ...table(
        ['Axis', 'Value', 'Jobs', 'Base', 'Head', 'Delta', '%'],
        axes
          .slice(0, MAX_AXIS_ROWS)
          .map((g) => [
            g.axis,
            g.value,
            `${g.jobs.base} → ${g.jobs.head}`,
            formatCredits(g.base),
            formatCredits(g.head),
            signed(g.delta),
            percent(g.percent),
          ]),
        ['left', 'left', 'right', 'right', 'right', 'right', 'right'],
      ),
    );
    if (axes.length > MAX_AXIS_ROWS) lines.push(`    … and ${axes.length - MAX_AXIS_ROWS} more`);
  }
  const list = (title: string, count: number, headers: string[], rows: string[][], align: Align[]): void => {
    if (count === 0) return;
    lines.push(
      `  ${style.bold(`${title} (${count})`)}`,
      ...table(headers, rows.slice(0, MAX_LISTED_DIFF_JOBS), align),
    );
    if (count > MAX_LISTED_DIFF_JOBS) lines.push(`    … and ${count - MAX_LISTED_DIFF_JOBS} more`);
  };
  const { jobs } = manifest;
  const few = <T>(items: readonly T[]): readonly T[] => items.slice(0, MAX_LISTED_DIFF_JOBS);
  list(
    'Added',
    jobs.added.length,
    ['Job', 'Model', 'Credits'],
    few(jobs.added).map((job) => [`+ ${job.id}`, job.model, signed(job.credits)]),
    ['left', 'left', 'right'],
  );
  list(
    'Removed',
    jobs.removed.length,
    ['Job', 'Model', 'Credits'],
    few(jobs.removed).map((job) => [`- ${job.id}`, job.model, signed(-job.credits)]),
    ['left', 'left', 'right'],
  );
  list(
    'Changed',
    jobs.changed.length,
    ['Job', 'Model', 'Base', 'Head', 'Delta', 'What changed'],
    few(jobs.changed).map((job) => [
      `~ ${job.id}`,
      job.baseModel === job.headModel ? job.headModel : `${job.baseModel} → ${job.headModel}`,
      formatCredits(job.credits.base),
      formatCredits(job.credits.head),
      signed(job.credits.delta),
      describeChanges(
        job,
        (path, base, head) => `${path} ${base ?? '(none)'} → ${head ?? '(none)'}`,
        (path) => path,
      ),
    ]),
    ['left', 'left', 'right', 'right', 'right', 'left'],
  );
  list(
    'Renamed (same payload, new id)',
    jobs.renamed.length,
    ['From', 'To', 'Delta'],
    few(jobs.renamed).map((job) => [
      job.from,
      `→ ${job.to}`,
      job.credits.delta === 0 ? '0' : `${signed(job.credits.delta)} (price)`,
    ]),
    ['left', 'left', 'right'],
  );
  return lines;
}

/** `1,240 → 1,480 credits (+240, +19.4 %)`, the delta colored: red for more, green for less. */
function describeDelta(figure: CreditDelta, style: Style): string {
  const change = `${signed(figure.delta)}${figure.percent === null ? '' : `, ${figure.percent > 0 ? '+' : ''}${figure.percent} %`}`;
  const painted = figure.delta > 0 ? style.red(change) : figure.delta < 0 ? style.green(change) : change;
  return `${formatCredits(figure.base)} → ${formatCredits(figure.head)} credits (${painted})`;
}

function signed(value: number): string {
  return value > 0 ? `+${formatCredits(value)}` : value < 0 ? `-${formatCredits(-value)}` : '0';
}

function percent(value: number | null): string {
  return value === null ? 'new' : `${value > 0 ? '+' : ''}${value} %`;
}
