import { ExitCode, isRunnerError, type ExitCode as ExitCodeType } from '../errors.js';
import { exitCodeOfError } from './exit-codes.js';
import type { Output } from '../app/output-sink.js';
import { describeSystemError } from '../app/system-errors.js';

const ISSUES_URL = 'https://github.com/mediagen/runner/issues';

/**
 * The one place that turns an error into text on stderr and an exit code. A RunnerError prints its
 * message and hint, as does a system error that is the user's situation (a path, a port); anything
 * else is a bug and says so, with the stack only under RUNNER_DEBUG=1.
 */
export function reportError(thrown: unknown, output: Output, env: NodeJS.ProcessEnv): ExitCodeType {
  const { style } = output;
  const error = describeSystemError(thrown);
  if (isRunnerError(error)) {
    output.err(`${style.red('error')} ${error.message}`);
    if (error.hint !== undefined) output.err(`  ${style.dim('hint:')} ${error.hint}`);
    if (env.RUNNER_DEBUG === '1' && error.stack !== undefined) output.err(style.dim(error.stack));
    return exitCodeOfError(error.code);
  }
  const message = error instanceof Error ? error.message : String(error);
  output.err(`${style.red('internal error')} ${message}`);
  output.err(`  This is a bug in runner. Please report it at ${ISSUES_URL} with the command you ran.`);
  if (env.RUNNER_DEBUG === '1' && error instanceof Error && error.stack !== undefined) {
    output.err(style.dim(error.stack));
  } else {
    output.err(`  ${style.dim('Run again with RUNNER_DEBUG=1 to see the stack trace.')}`);
  }
  return ExitCode.Failure;
}
