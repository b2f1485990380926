import { readFile } from 'node:fs/promises';
import { UsageError } from '../../errors.js';
import { defineCommand, flag } from './command.js';

/**
 * `runner diff BASE HEAD` (or `runner diff HEAD --compare-to BASE`): the cost diff of two plan reports.
 * Exit 0, 3 when a `--fail-on-increase*` limit is crossed, 2 for a file that is not a plan report.
 * The use case is src/app/diff.ts; the formats are rendered by ../render/diff-output.ts.
 */
export const diffCommand = defineCommand({
  name: 'diff',
  args: '[...files]',
  description:
    'Cost diff of two plan reports: jobs added, removed, changed, renamed; per model, axis value, month',
  flags: [
    flag('--compare-to <file>', 'The base report, when only the head is given as an argument'),
    flag(
      '--format <format>',
      'text, json or markdown (the pull request comment, as `runner comment github` posts it)',
      { default: 'text' },
    ),
    flag('--out <file>', 'Also write the diff to a file'),
    flag(
      '--fail-on-increase <credits>',
      'Exit 3 when the change adds more credits than this: N/run, N/month, or N/night (day, week, hour) when every manifest runs on that schedule; a bare N counts per month when every manifest has a schedule, else per run',
    ),
    flag(
      '--fail-on-increase-percent <n>',
      'Exit 3 when the change adds more than n % (n/run, n/month...: the unit, as above)',
    ),
  ],
  // Compares two plan reports: no service, no key.
  globals: [],
  examples: [
    'runner diff base.json head.json',
    'runner diff base.json head.json --format json --fail-on-increase 1000',
  ],
  async parse({ args, flags }) {
    const { parseDiffOptions } = await import('../parse/diff.js');
    const { compareTo, ...options } = parseDiffOptions(flags);
    const files = compareTo === undefined ? args : [compareTo, ...args];
    if (files.length !== 2) {
      throw new UsageError(
        `runner diff compares two plan reports; received ${files.length === 0 ? 'none' : files.length === 1 ? 'one' : files.length}.`,
        { hint: 'runner diff base.json head.json (each from `runner plan FILE --format json --out FILE`)' },
      );
    }
    const [baseFile = '', headFile = ''] = files;
    return { ...options, baseFile, headFile };
  },
  async run(ctx, { baseFile, headFile, format, limits, out }) {
    const { diffPlanFiles } = await import('../../app/diff.js');
    const { emitDiff } = await import('../render/diff-output.js');
    const { diff, outcome } = await diffPlanFiles({
      baseFile,
      headFile,
      limits,
      readText: (file) => readFile(file, 'utf8'),
    });
    await emitDiff(ctx, diff, format, out, { base: baseFile, head: headFile });
    return outcome;
  },
});
