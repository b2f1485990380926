import { parseLocalPathOption, parseStringOption } from './values.js';
import type { ReportOptions } from '../../app/report.js';
import { readRunFlags, type Flags } from './common.js';

/** `runner report` flags → {@link ReportOptions}. */
export function parseReportOptions(flags: Flags): ReportOptions {
  const output = parseStringOption(flags.output);
  const out = parseLocalPathOption('out', flags.out);
  return {
    ...readRunFlags(flags),
    ...(output === undefined ? {} : { output }),
    ...(out === undefined ? {} : { out }),
  };
}
