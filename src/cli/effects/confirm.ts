import { createInterface } from 'node:readline';
import { RunnerError } from '../../errors.js';

/**
 * Asks a yes/no question on a terminal. Ctrl-C at the prompt is an interruption (exit 130, nothing
 * applied), not a crash; the end of input (Ctrl-D) is a "no".
 */
export function askYesNo(
  input: NodeJS.ReadableStream & { isTTY?: boolean },
  output: NodeJS.WritableStream,
  question: string,
): Promise<boolean> {
  const rl = createInterface({ input, output, terminal: input.isTTY === true });
  return new Promise<boolean>((resolve, reject) => {
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      rl.close();
      finish();
    };
    rl.on('SIGINT', () => {
      output.write('\n');
      settle(() =>
        reject(
          new RunnerError('INTERRUPTED', 'Interrupted at the confirmation prompt: nothing was applied.'),
        ),
      );
    });
    rl.on('close', () => settle(() => resolve(false)));
    rl.question(`${question} [y/N] `, (answer) => settle(() => resolve(/^y(es)?$/i.test(answer.trim()))));
  });
}
