import { readFile, writeFile } from 'node:fs/promises';
import { UsageError } from '../../errors.js';
import { PRIVATE_FILE_MODE } from '../../file-modes.js';
import { explainLinkError, WRITE_NO_FOLLOW } from '../../no-follow.js';
import { diffPlanFiles } from '../../app/diff.js';
import type { CostDiff } from '../../diff/cost-diff.js';
import { renderDiffMarkdown } from '../../diff/render-diff-markdown.js';
import { renderDiffText } from '../../diff/render-diff-text.js';
import type { CommandContext } from '../../app/context.js';
import type { Outcome } from '../../app/outcome.js';
import { parseDiffOptions, type DiffFormat } from '../parse/diff.js';
import type { Flags } from '../parse/common.js';

/**
 * The formats of `runner diff` and `runner plan --compare-to`, each a renderer of the whole diff.
 * `markdown` is the pull request comment (src/diff/render-diff-markdown.ts), as `runner comment github` posts it.
 */
export const DIFF_RENDERERS = {
  text: (diff: CostDiff, ctx: CommandContext, files?: { base: string; head: string }) =>
    renderDiffText(diff, {
      color: ctx.output.color,
      width: ctx.output.width,
      ...(files === undefined ? {} : { files }),
    }),
  json: (diff: CostDiff) => `${JSON.stringify(diff, null, 2)}\n`,
  markdown: (diff: CostDiff) => renderDiffMarkdown(diff),
} satisfies Record<
  DiffFormat,
  (diff: CostDiff, ctx: CommandContext, files?: { base: string; head: string }) => string
>;

/**
 * `runner diff BASE HEAD` (or `runner diff HEAD --compare-to BASE`): the cost diff of two plan reports.
 * Exit 0, 3 when a `--fail-on-increase*` limit is crossed, 2 for a file that is not a plan report.
 */
export async function runDiff(ctx: CommandContext, args: string[], flags: Flags): Promise<Outcome> {
  const { compareTo, format, limits, out } = parseDiffOptions(flags);
  const files = compareTo === undefined ? args : [compareTo, ...args];
  if (files.length !== 2) {
    throw new UsageError(
      `runner diff compares two plan reports; received ${files.length === 0 ? 'none' : files.length === 1 ? 'one' : files.length}.`,
      { hint: 'runner diff base.json head.json (each from `runner plan FILE --format json --out FILE`)' },
    );
  }
  const [baseFile = '', headFile = ''] = files;
  const { diff, outcome } = await diffPlanFiles({
    baseFile,
    headFile,
    limits,
    readText: (file) => readFile(file, 'utf8'),
  });
  await emitDiff(ctx, diff, format, out, { base: baseFile, head: headFile });
  return outcome;
}

/** Prints the diff, and writes it to `--out` (text without colors). */
export async function emitDiff(
  ctx: CommandContext,
  diff: CostDiff,
  format: DiffFormat,
  outFile: string | undefined,
  files: { base: string; head: string },
): Promise<void> {
  const rendered = DIFF_RENDERERS[format](diff, ctx, files);
  await ctx.output.write(rendered);
  if (outFile === undefined) return;
  const plain = format === 'text' ? renderDiffText(diff, { color: false, width: 100, files }) : rendered;
  await writeFile(outFile, plain, { mode: PRIVATE_FILE_MODE, flag: WRITE_NO_FOLLOW }).catch(
    (error: unknown) => {
      throw explainLinkError(error, '--out', outFile);
    },
  );
}
