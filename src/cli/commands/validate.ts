import { ExitCode } from '../../errors.js';
import { withConnection } from '../connect.js';
import type { CommandContext } from '../context.js';
import { preparePlan, readPrepareOptions } from '../prepare-plan.js';
import { issuesToJson, renderIssues } from '../render/issues.js';

/** `runner validate FILE`: every problem at once; exit 2 when there is an error. */
export async function runValidate(ctx: CommandContext, args: string[], options: Record<string, unknown>) {
  const [manifestFile = ''] = args;
  const prepared = await preparePlan(ctx, readPrepareOptions(manifestFile, options), () =>
    withConnection(ctx, ({ client }) => client.listModels()),
  );
  const { output } = ctx;
  if (options.json === true) {
    output.out(JSON.stringify(issuesToJson(prepared.issues, manifestFile), null, 2));
  } else if (prepared.ok) {
    if (prepared.issues.length > 0) output.err(renderIssues(prepared.issues, manifestFile, output.style));
    const count = prepared.plan.jobs.length;
    output.out(`${output.style.green('✓')} ${manifestFile} is valid: ${count} job${count === 1 ? '' : 's'}.`);
  } else {
    output.err(renderIssues(prepared.issues, manifestFile, output.style));
  }
  return prepared.ok ? ExitCode.Success : ExitCode.InvalidInput;
}
