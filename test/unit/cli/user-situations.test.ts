import { createServer } from 'node:net';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { askYesNo } from '../../../src/cli/effects/confirm.js';
import { createOutput } from '../../../src/cli/output.js';
import { reportError } from '../../../src/cli/report-error.js';
import { startSimulator } from '../../../src/simulator/index.js';

/** Reports `error` as the CLI would; resolves to the exit code and the text on stderr. */
function report(error: unknown) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const output = createOutput({
    env: { NO_COLOR: '1' },
    stdout: stdout,
    stderr: stderr,
  });
  const code = reportError(error, output, {});
  return { code, text };
}

async function failureOf(action: () => Promise<unknown>): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('user situations are not internal errors (issue #7.7)', () => {
  it('reports ENOENT, ENOTDIR and EISDIR with the path, exit 2', async () => {
    const { readFile, mkdir } = await import('node:fs/promises');
    const dir = await mkdtemp(join(tmpdir(), 'runner-sys-'));
    const file = join(dir, 'a-file');
    await writeFile(file, 'x');
    const cases: [unknown, RegExp][] = [
      [await failureOf(() => readFile(join(dir, 'missing'))), /missing does not exist \(ENOENT\)/],
      [await failureOf(() => mkdir(join(file, 'sub'), { recursive: true })), /a part of this path is a file/],
      [await failureOf(() => readFile(dir)), /EISDIR/],
    ];
    for (const [error, message] of cases) {
      const { code, text } = report(error);
      expect(code).toBe(2);
      expect(text).toMatch(message);
      expect(text).not.toContain('internal error');
    }
  });

  it('reports EACCES with what was attempted (root cannot provoke it, so the error is built)', () => {
    const error = Object.assign(new Error("EACCES: permission denied, open '/etc/x'"), {
      code: 'EACCES',
      syscall: 'open',
      path: '/etc/x',
    });
    const { code, text } = report(error);
    expect(code).toBe(2);
    expect(text).toContain('no permission to open /etc/x');
  });

  it('reports a port in use for the simulator, with --port 0 as the way out', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const error = await failureOf(() => startSimulator({ port }));
      const { code, text } = report(error);
      expect(code).toBe(2);
      expect(text).toContain(`Port ${port} is already in use`);
      expect(text).toContain('--port 0');
    } finally {
      blocker.close();
    }
  });

  it('keeps unexpected errors as bugs', () => {
    expect(report(new TypeError('x is undefined')).text).toContain('internal error');
  });
});

describe('askYesNo', () => {
  const terminal = () => Object.assign(new PassThrough(), { isTTY: true });

  it('turns Ctrl-C at the prompt into an interruption: exit 130, nothing applied', async () => {
    const input = terminal();
    const answer = askYesNo(input, new PassThrough(), 'Apply?');
    input.write('\x03');
    const error = await failureOf(() => answer);
    expect(report(error)).toMatchObject({ code: 130 });
    expect(report(error).text).toContain('nothing was applied');
  });

  it('reads y as yes, anything else and the end of input as no', async () => {
    const yes = terminal();
    const asked = askYesNo(yes, new PassThrough(), 'Apply?');
    yes.write('y\r');
    expect(await asked).toBe(true);
    const eof = new PassThrough();
    const closed = askYesNo(eof, new PassThrough(), 'Apply?');
    eof.end();
    expect(await closed).toBe(false);
  });
});
