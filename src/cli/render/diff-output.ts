import { writeFile } from 'node:fs/promises';
import { PRIVATE_FILE_MODE } from '../../file-modes.js';
import { explainLinkError, WRITE_NO_FOLLOW } from '../../no-follow.js';
import type { CostDiff } from '../../diff/cost-diff.js';
import { renderDiffMarkdown } from '../../diff/render-diff-markdown.js';
import { renderDiffText } from '../../diff/render-diff-text.js';
import type { CommandContext } from '../../app/context.js';
import type { DiffFormat } from '../parse/diff.js';

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
