import { defineCommand, flag } from './command.js';
import { RUN_FLAG, STATE_FLAGS, TARGETING_FLAGS, VAR_FLAGS } from './shared-flags.js';

/** `runner report FILE`: the use case is src/app/report.ts; the terminal renders the problems. */
export const reportCommand = defineCommand({
  name: 'report',
  args: '<manifest>',
  description: 'Write a self-contained HTML gallery of what a run made (opens from disk)',
  flags: [
    RUN_FLAG,
    ...STATE_FLAGS,
    flag('--output <dir>', 'Output folder of a run of an earlier release (a run records its own)'),
    flag(
      '--out <file>',
      'Where to write the page; a folder (existing, or written with a trailing /) gets report.html inside it (default: report.html in the download folder)',
    ),
    ...TARGETING_FLAGS,
    ...VAR_FLAGS,
  ],
  // It reads no service, but the API key's value, to keep it out of the page.
  globals: ['api-key-file'],
  examples: ['runner report pipelines/demo.yaml --run 2026-11-23 --out report.html'],
  manifestArg: 0,
  async parse({ args, flags }) {
    const { parseReportOptions } = await import('../parse/report.js');
    return { manifestFile: args[0] ?? '', options: parseReportOptions(flags) };
  },
  async run(ctx, { manifestFile, options }) {
    const { runReport } = await import('../../app/report.js');
    const { renderIssues } = await import('../render/issues.js');
    return runReport(ctx, manifestFile, options, { issues: renderIssues });
  },
});
