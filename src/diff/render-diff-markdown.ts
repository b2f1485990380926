import type { CostDiff, CreditDelta, ManifestDiff } from './cost-diff.js';
import { fitSections, type CuttableSection, type SectionGroup } from './fit-sections.js';
import { describeChanges } from './describe-changes.js';
import { runUnit } from './run-unit.js';
import {
  codeSpan,
  tableCodeSpan,
  escapeHtmlText,
  escapeMarkdownText as md,
  formatCountChange,
  formatCredits,
  formatDelta,
  formatDeltaIn,
  formatSigned,
} from './markdown-text.js';
import { readableUtcTime } from '../readable-time.js';

/** GitHub refuses an issue or pull request comment whose body is longer than this (HTTP 422). */
export const GITHUB_COMMENT_LIMIT = 65_536;

/** The hidden first line that finds the comment again; {@link commentMarker} adds the tag. */
export const COMMENT_MARKER = '<!-- runner-cost-diff -->';

/** A tag keeps several cost comments on one pull request apart (`--tag`): letters, digits, `.`, `_`, `-`. */
export const TAG_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** Room kept for the closing note and the "cut to fit" note, whatever the sections took. */
const FOOT_ROOM = 600;

/** Options of {@link renderDiffMarkdown}. */
export interface DiffMarkdownOptions {
  /** Keeps this comment apart from other cost comments on the same pull request; must match {@link TAG_PATTERN}. */
  tag?: string;
  /** Where the whole diff can be read when the comment is cut: a file name (`diff.json`) and/or a link (the workflow run). */
  fullReport?: { path?: string; url?: string };
  /** @default {@link GITHUB_COMMENT_LIMIT} (at least 4,000 is needed for the summary and the notes) */
  maxLength?: number;
}

/** The marker line for `tag`: `<!-- runner-cost-diff -->` or `<!-- runner-cost-diff: nightly -->`. */
export function commentMarker(tag?: string): string {
  if (tag === undefined) return COMMENT_MARKER;
  if (!TAG_PATTERN.test(tag)) throw new TypeError(`tag must match ${String(TAG_PATTERN)}; received ${tag}`);
  return `<!-- runner-cost-diff: ${tag} -->`;
}

/**
 * The cost diff as a pull request comment (GitHub-flavoured Markdown): a hidden marker line, one
 * summary line with the total delta per run (and per month when scheduled), the guardrails crossed,
 * a note when the two sides' catalogs priced models differently, a table of the manifests that
 * changed, then per manifest the changed / added / removed / renamed jobs and the deltas per model and
 * per axis value in collapsible `<details>`. Never longer than `maxLength`: rows and then whole sections
 * are left out from the end, with a note of how many and where the full report is. Pure.
 */
export function renderDiffMarkdown(diff: CostDiff, options: DiffMarkdownOptions = {}): string {
  const maxLength = Math.max(options.maxLength ?? GITHUB_COMMENT_LIMIT, 4_000);
  const unit = runUnit(diff);
  const head = [
    commentMarker(options.tag),
    '### Cost of this pull request',
    '',
    summaryLine(diff, unit),
    ...guardrailLines(diff),
    ...sideNoteLines(diff),
    ...priceNoteLines(diff),
    '',
  ];
  const headSize = head.join('\n').length + 1;
  const groups: SectionGroup[] = [
    { open: [], sections: [manifestTable(diff)], close: [] },
    ...diff.manifests.filter((m) => m.change !== 'unchanged').map(manifestDetails),
  ];
  const catalogs = catalogDetails(diff);
  if (catalogs !== undefined) groups.push(catalogs);
  const fitted = fitSections(groups, maxLength - headSize - FOOT_ROOM);
  const foot = [footLine(diff)];
  if (fitted.leftOut.rows > 0 || fitted.leftOut.sections > 0) foot.push('', cutNote(fitted.leftOut, options));
  const text = [...head, ...fitted.lines, ...foot].join('\n') + '\n';
  // fitSections keeps to its budget and FOOT_ROOM covers the notes; this only guards that promise.
  return text.length <= maxLength ? text : text.slice(0, maxLength);
}

function summaryLine(diff: CostDiff, unit: string): string {
  const { total, totalPerMonth } = diff;
  if (total.delta === 0 && (totalPerMonth === null || totalPerMonth.delta === 0)) {
    const month = totalPerMonth === null ? '' : ` (${formatCredits(totalPerMonth.head)} per month)`;
    return `**No change in cost**: ${formatCredits(total.head)} credits per ${unit}${month}.`;
  }
  const perRun = `**${formatDeltaIn(total, `credits per ${unit}`)}**`;
  const month =
    totalPerMonth === null ? '' : `, ${formatDeltaIn(totalPerMonth, 'per month')}${scheduledPart(diff)}`;
  return `${perRun}${month}: ${formatCredits(total.head)} credits per ${unit} instead of ${formatCredits(total.base)}.`;
}

/**
 * Whose month the headline counts, when not every manifest has a schedule: the month's delta sums
 * only the scheduled ones (an unscheduled manifest has no month), so "+480 per month" beside "+96 per
 * run" read as the whole change's month when most of the run's delta was not in it.
 */
function scheduledPart(diff: CostDiff): string {
  const scheduled = diff.manifests.filter((manifest) => manifest.perMonth !== null).length;
  if (scheduled === diff.manifests.length) return '';
  return ` (the ${scheduled} of ${diff.manifests.length} manifests with a schedule)`;
}

/**
 * The guardrails: those crossed in a warning, those kept on one line each, every one with the unit it
 * counted in (its message), which may differ from the headline's (#33.7).
 */
function guardrailLines(diff: CostDiff): string[] {
  const crossed = diff.guardrails.filter((g) => g.crossed);
  const kept = diff.guardrails.filter((g) => !g.crossed);
  const lines: string[] = [];
  if (crossed.length > 0) {
    lines.push(
      '',
      '> [!WARNING]',
      `> **${crossed.length === 1 ? 'A cost guardrail was' : `${crossed.length} cost guardrails were`} crossed:**`,
      ...crossed.map((g) => `> - \`--fail-on-${g.limit}\`: ${md(g.message, 400)}`),
    );
  }
  for (const g of kept)
    lines.push('', `Within the guardrail \`--fail-on-${g.limit}\`: ${md(g.message, 400)}.`);
  return lines;
}

/**
 * What a side lacked (#33.5): the base commit of the pull request that adds the first manifests has
 * none, and one from before `catalog.json` was committed is priced with the pull request's.
 */
function sideNoteLines(diff: CostDiff): string[] {
  const notes: string[] = [];
  if (diff.manifests.length > 0 && diff.manifests.every((m) => m.change === 'added')) {
    notes.push('The base commit has no manifests: every manifest of this pull request is added.');
  }
  const { base, head } = diff.catalogs;
  for (const [side, other, commit, otherName] of [
    [base, head, 'The base commit', "the pull request's"],
    [head, base, 'The pull request', "the base commit's"],
  ] as const) {
    if (side.fallbackFor === undefined) continue;
    notes.push(
      side.pricesHash === other.pricesHash
        ? `${commit} has no ${codeSpan(side.fallbackFor)}: both sides were priced with ${otherName}, so the delta is the manifests' change alone.`
        : `${commit} has no ${codeSpan(side.fallbackFor)}: it was priced with ${codeSpan(side.path ?? '?')} instead.`,
    );
  }
  return notes.length === 0 ? [] : ['', '> [!NOTE]', ...notes.map((note) => `> ${note}`)];
}

function priceNoteLines(diff: CostDiff): string[] {
  if (diff.catalogs.samePrices) return [];
  const count = diff.catalogs.priceChanges.length;
  const models =
    count === 0
      ? 'model prices differ'
      : count === 1
        ? "one model's price differs"
        : `${count} models' prices differ`;
  const { priceDelta } = diff.catalogs;
  const part =
    priceDelta === undefined || priceDelta === 0
      ? 'part of this delta may be a price change'
      : `${formatSigned(priceDelta)} credits per run of this delta ${Math.abs(priceDelta) === 1 ? 'is' : 'are'} a price change`;
  return [
    '',
    '> [!NOTE]',
    `> The two sides were priced with different catalogs (${models}): ${part}, not a change to the manifests. See "Catalogs" below.`,
  ];
}

function table(header: string[], right: boolean[]): string[] {
  return [`| ${header.join(' | ')} |`, `|${right.map((r) => (r ? '---:' : '---')).join('|')}|`];
}

function section(
  title: string,
  header: string[],
  right: boolean[],
  rows: string[][],
  noun: string,
): CuttableSection {
  return {
    head: [`**${title}** (${rows.length.toLocaleString('en-US')})`, '', ...table(header, right)],
    rows: rows.map((cells) => `| ${cells.join(' | ')} |`),
    tail: [''],
    noun,
  };
}

/** ` (nightly)`, or ` (no schedule → nightly)` when the change moved it; empty without one. */
function scheduleNote(m: ManifestDiff): string {
  const label = (given: ManifestDiff['schedule']) => (given === null ? 'no schedule' : md(given.label, 40));
  if (m.scheduleBefore !== undefined) return ` (${label(m.scheduleBefore)} → ${label(m.schedule)})`;
  return m.schedule === null ? '' : ` (${label(m.schedule)})`;
}

function manifestTable(diff: CostDiff): CuttableSection {
  const monthly = diff.totalPerMonth !== null;
  const header = ['Manifest', 'Change', 'Base per run', 'Head per run', 'Delta per run'];
  if (monthly) header.push('Delta per month');
  const shown = diff.manifests.filter((m) => m.change !== 'unchanged');
  const rows = shown.map((m) => {
    const cells = [
      `${md(m.path)}${scheduleNote(m)}`,
      m.change,
      formatCredits(m.perRun.base),
      formatCredits(m.perRun.head),
      formatDelta(m.perRun),
    ];
    if (monthly) cells.push(m.perMonth === null ? '–' : formatDelta(m.perMonth));
    return `| ${cells.join(' | ')} |`;
  });
  const unchanged = diff.manifests.length - shown.length;
  const totals = ['**Total**', unchanged > 0 ? `${unchanged} unchanged` : '', ...totalCells(diff.total)];
  if (monthly) totals.push(diff.totalPerMonth === null ? '–' : `**${formatDelta(diff.totalPerMonth)}**`);
  return {
    head: table(header, [false, false, true, true, true, true].slice(0, header.length)),
    rows: [`| ${totals.join(' | ')} |`, ...rows],
    tail: [''],
    noun: 'manifests',
  };
}

function totalCells(total: CreditDelta): string[] {
  return [
    `**${formatCredits(total.base)}**`,
    `**${formatCredits(total.head)}**`,
    `**${formatDelta(total)}**`,
  ];
}

function countsLine(m: ManifestDiff): string {
  const parts: string[] = [];
  const { counts } = m;
  if (counts.added > 0) parts.push(`${counts.added} added`);
  if (counts.removed > 0) parts.push(`${counts.removed} removed`);
  if (counts.changed > 0) parts.push(`${counts.changed} changed`);
  if (counts.renamed > 0) parts.push(`${counts.renamed} renamed`);
  return parts.length === 0 ? 'no job changed' : `jobs: ${parts.join(', ')}`;
}

function byMagnitude<T>(items: readonly T[], delta: (item: T) => number, id: (item: T) => string): T[] {
  return [...items].sort(
    (a, b) => Math.abs(delta(b)) - Math.abs(delta(a)) || (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0),
  );
}

function manifestDetails(m: ManifestDiff): SectionGroup {
  const title = `${escapeHtmlText(m.path)}: ${formatDeltaIn(m.perRun, 'credits per run')}; ${m.change}, ${countsLine(m)}`;
  const sections: CuttableSection[] = [];
  const changed = byMagnitude(
    m.jobs.changed,
    (j) => j.credits.delta,
    (j) => j.id,
  );
  sections.push(
    section(
      'Changed jobs',
      ['Job', 'Model', 'Base', 'Head', 'Delta', 'What changed'],
      [false, false, true, true, true, false],
      changed.map((j) => [
        md(j.id),
        j.baseModel === j.headModel ? md(j.baseModel) : `${md(j.baseModel)} → ${md(j.headModel)}`,
        formatCredits(j.credits.base),
        formatCredits(j.credits.head),
        formatDelta(j.credits),
        describeChanges(j, changeInMarkdown, (path) => md(path, 100)),
      ]),
      'changed jobs',
    ),
  );
  for (const [title2, jobs, noun] of [
    ['Added jobs', m.jobs.added, 'added jobs'],
    ['Removed jobs', m.jobs.removed, 'removed jobs'],
  ] as const) {
    const sorted = byMagnitude(
      jobs,
      (j) => j.credits,
      (j) => j.id,
    );
    sections.push(
      section(
        title2,
        ['Job', 'Model', 'Credits'],
        [false, false, true],
        sorted.map((j) => [md(j.id), md(j.model), formatCredits(j.credits)]),
        noun,
      ),
    );
  }
  const renamed = byMagnitude(
    m.jobs.renamed,
    (j) => j.credits.delta,
    (j) => j.to,
  );
  sections.push(
    section(
      'Renamed jobs',
      ['From', 'To', 'Base', 'Head', 'Delta'],
      [false, false, true, true, true],
      renamed.map((j) => [
        md(j.from),
        md(j.to),
        formatCredits(j.credits.base),
        formatCredits(j.credits.head),
        formatDelta(j.credits),
      ]),
      'renamed jobs',
    ),
  );
  const moved = <T extends { delta: number; jobs: { base: number; head: number } }>(g: T) =>
    g.delta !== 0 || g.jobs.base !== g.jobs.head;
  sections.push(
    section(
      'By model',
      ['Model', 'Jobs', 'Base', 'Head', 'Delta'],
      [false, true, true, true, true],
      m.byModel
        .filter(moved)
        .map((g) => [
          md(g.model),
          formatCountChange(g.jobs.base, g.jobs.head),
          formatCredits(g.base),
          formatCredits(g.head),
          formatDelta(g),
        ]),
      'models',
    ),
  );
  sections.push(
    section(
      'By axis value',
      ['Axis', 'Value', 'Jobs', 'Base', 'Head', 'Delta'],
      [false, false, true, true, true, true],
      m.byAxisValue
        .filter(moved)
        .map((g) => [
          md(g.axis),
          md(g.value),
          formatCountChange(g.jobs.base, g.jobs.head),
          formatCredits(g.base),
          formatCredits(g.head),
          formatDelta(g),
        ]),
      'axis values',
    ),
  );
  return { open: [`<details><summary>${title}</summary>`, ''], sections, close: ['</details>', ''] };
}

function describeCatalog(side: CostDiff['catalogs']['base']): string {
  const where = side.source === 'file' ? `file ${md(side.path ?? '?')}` : side.source;
  const when = side.fetchedAt === undefined ? '' : `, ${md(readableUtcTime(side.fetchedAt), 40)}`;
  return `${where}${when} (prices ${md(side.pricesHash.slice(0, 12), 12)})`;
}

function catalogDetails(diff: CostDiff): SectionGroup | undefined {
  const { catalogs } = diff;
  if (catalogs.samePrices) return undefined;
  const sides: CuttableSection = {
    head: table(['Side', 'Catalog'], [false, false]),
    rows: [`| base | ${describeCatalog(catalogs.base)} |`, `| head | ${describeCatalog(catalogs.head)} |`],
    tail: [''],
    noun: 'catalogs',
  };
  const prices = section(
    'Price changes',
    ['Model', 'Base price', 'Head price'],
    [false, false, false],
    catalogs.priceChanges.map((p) => [
      md(p.model),
      p.base === undefined ? '(not in the catalog)' : md(p.base),
      p.head === undefined ? '(not in the catalog)' : md(p.head),
    ]),
    'price changes',
  );
  return {
    open: ['<details><summary>Catalogs: the two sides used different prices</summary>', ''],
    sections: [sides, prices],
    close: ['</details>', ''],
  };
}

function footLine(diff: CostDiff): string {
  const counts = { added: 0, removed: 0, changed: 0, unchanged: 0 };
  for (const m of diff.manifests) counts[m.change]++;
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([change, n]) => `${n} ${change}`);
  return `<sub>${diff.manifests.length} manifest${diff.manifests.length === 1 ? '' : 's'} (${parts.join(', ') || 'none'}); credits ${formatSigned(diff.total.delta)} per run. Posted by runner.</sub>`;
}

function cutNote(leftOut: { rows: number; sections: number }, options: DiffMarkdownOptions): string {
  const rows = `${leftOut.rows.toLocaleString('en-US')} row${leftOut.rows === 1 ? '' : 's'}`;
  const whole =
    leftOut.sections === 0 ? '' : ` (${leftOut.sections} section${leftOut.sections === 1 ? '' : 's'} whole)`;
  const where = options.fullReport;
  const file =
    where?.path === undefined
      ? 'the JSON diff (`runner diff --format json`)'
      : `\`${where.path.replace(/[`\r\n]/g, '').slice(0, 200)}\``;
  const url = safeLink(where?.url);
  const link = url === undefined ? '' : ` ([workflow run](${url}))`;
  return [
    '> [!NOTE]',
    `> This comment was cut to stay under GitHub's ${GITHUB_COMMENT_LIMIT.toLocaleString('en-US')}-character limit: ${rows}${whole} left out. The full diff is ${file}${link}.`,
  ].join('\n');
}

/** An http(s) link as a Markdown link target (parentheses and spaces encoded), or nothing. */
function safeLink(url: string | undefined): string | undefined {
  if (url === undefined || url.length > 300) return undefined;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return undefined;
    return parsed.href.replace(/[()<> ]/g, (c) => encodeURIComponent(c));
  } catch {
    return undefined;
  }
}

/** A changed field in a table cell: its path as text, its values as code spans (#33.8, #32.6). */
function changeInMarkdown(path: string, base: string | null, head: string | null): string {
  const value = (text: string | null) => (text === null ? '(none)' : tableCodeSpan(text));
  return `${md(path, 100)} ${value(base)} → ${value(head)}`;
}
