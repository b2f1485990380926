import { describe, expect, it } from 'vitest';
import { parseFaultSpec } from '../../../src/cli/commands/simulate.js';
import { applyWriteTargets, readExecuteOptions, resolveOutputDir } from '../../../src/app/apply-options.js';
import { parseApplyOptions } from '../../../src/cli/parse/apply.js';
import { PassThrough } from 'node:stream';
import { createOutput, shouldUseColor } from '../../../src/cli/output.js';
import { parseNumberOption, parseStringOption } from '../../../src/cli/parse/values.js';

const run = { runId: 'r', timeScale: 1, manifestDir: '/m', manifestOutput: undefined, pipeline: 'p' };

describe('option parsing', () => {
  it('reads numbers within bounds and names the flag otherwise', () => {
    expect(parseNumberOption('concurrency', '3', { min: 1, max: 4, integer: true })).toBe(3);
    expect(parseNumberOption('concurrency', undefined)).toBeUndefined();
    expect(() => parseNumberOption('concurrency', 9, { min: 1, max: 4, integer: true })).toThrow(
      '--concurrency expects an integer from 1 to 4, received 9.',
    );
    expect(() => parseNumberOption('max-credits', 'lots', { min: 0 })).toThrow('--max-credits');
  });

  it('keeps string flags as written, the last of repeated ones winning', () => {
    expect(parseStringOption(['0012'])).toBe('0012');
    expect(parseStringOption(['a', 'b'])).toBe('b');
    expect(parseStringOption(undefined)).toBeUndefined();
  });

  it('reads fault specs and rejects what it cannot read', () => {
    expect(parseFaultSpec('500=0.15, 429=0.1,reset=0.03,slow=0.05')).toEqual({
      serverError: 0.15,
      rateLimit: 0.1,
      reset: 0.03,
      slow: 0.05,
    });
    expect(() => parseFaultSpec('503=0.1')).toThrow('--faults: cannot read "503=0.1".');
    expect(() => parseFaultSpec('500=2')).toThrow('cannot read');
  });
});

describe('readExecuteOptions', () => {
  it('uses the real polling policy against the service', () => {
    const options = readExecuteOptions({ cwd: '/cwd' }, parseApplyOptions({}), run);
    expect(options.pollIntervalMs).toEqual([3000, 5000]);
    expect(options.firstPollAfterMs).toBeUndefined();
    expect(options.jobDeadlineMs).toBe(900_000);
    expect(options.idempotencyWindowMs).toBe(270_000);
    expect(options.onUncertain).toBe('skip');
    // A folder of the run's own (issue 20 item 5).
    expect(options.outputDir).toBe('/m/runner-output/p/r');
  });

  it('scales every duration of the policy with the simulator', () => {
    const options = readExecuteOptions({ cwd: '/cwd' }, parseApplyOptions({}), { ...run, timeScale: 0.01 });
    expect(options.pollIntervalMs).toEqual([30, 50]);
    expect(options.firstPollAfterMs).toBe(100);
    expect(options.idempotencyWindowMs).toBe(2700);
  });

  it('passes the manifest retry block to the executor', () => {
    const options = readExecuteOptions({ cwd: '/cwd' }, parseApplyOptions({}), {
      ...run,
      retry: { maxAttempts: 5, failureKinds: { QUOTA_EXHAUSTED: 'fail', CONTENT_REJECTED: 'retry' } },
    });
    expect(options.retry).toEqual({
      maxAttempts: 5,
      actions: { QUOTA_EXHAUSTED: 'fail', CONTENT_REJECTED: 'retry' },
    });
    expect(
      readExecuteOptions({ cwd: '/c' }, parseApplyOptions({}), { ...run, timeScale: 0.01 }).retry,
    ).toEqual({
      backoffMs: 50,
    });
  });

  it('reads the flags', () => {
    const options = readExecuteOptions(
      { cwd: '/cwd' },
      parseApplyOptions({
        pollInterval: '100-200',
        firstPoll: 5,
        output: 'out',
        resendUncertain: true,
        concurrency: 2,
        jobDeadline: 60,
      }),
      { ...run, manifestOutput: 'ignored' },
    );
    expect(options).toMatchObject({
      pollIntervalMs: [100, 200],
      firstPollAfterMs: 5,
      outputDir: '/cwd/out',
      onUncertain: 'resend',
      concurrency: 2,
      jobDeadlineMs: 60_000,
    });
    // The results index and report still go to the run's folder, which the run records.
    expect(readExecuteOptions({ cwd: '/c' }, parseApplyOptions({ download: false }), run).outputDir).toBe(
      '/m/runner-output/p/r',
    );
    expect(() => readExecuteOptions({ cwd: '/c' }, parseApplyOptions({ pollInterval: '5-1' }), run)).toThrow(
      '--poll-interval',
    );
  });
});

describe('shouldUseColor', () => {
  const tty = { isTTY: true };
  it('follows NO_COLOR, FORCE_COLOR, --no-color and the terminal', () => {
    expect(shouldUseColor({}, tty, undefined)).toBe(true);
    expect(shouldUseColor({}, {}, undefined)).toBe(false);
    expect(shouldUseColor({ NO_COLOR: '1' }, tty, undefined)).toBe(false);
    expect(shouldUseColor({}, tty, false)).toBe(false);
    expect(shouldUseColor({ FORCE_COLOR: '1' }, {}, undefined)).toBe(true);
    expect(shouldUseColor({ TERM: 'dumb' }, tty, undefined)).toBe(false);
  });
});

describe('createOutput width', () => {
  const tty = (columns?: number) =>
    Object.assign(new PassThrough(), { isTTY: true }, columns === undefined ? {} : { columns });
  const pipe = () => new PassThrough();
  it('on a terminal takes its width, else COLUMNS, else 100; a 0-column pty counts as unknown', () => {
    expect(createOutput({ env: {}, stdout: tty(132), stderr: pipe() }).width).toBe(132);
    expect(createOutput({ env: { COLUMNS: '80' }, stdout: tty(), stderr: pipe() }).width).toBe(80);
    expect(createOutput({ env: { COLUMNS: 'wide' }, stdout: tty(), stderr: pipe() }).width).toBe(100);
    expect(createOutput({ env: {}, stdout: tty(0), stderr: pipe() }).width).toBe(100);
  });
  it('does not cut output that goes to a pipe or a file (CI logs), whatever COLUMNS says', () => {
    expect(createOutput({ env: {}, stdout: pipe(), stderr: pipe() }).width).toBe(Number.POSITIVE_INFINITY);
    expect(createOutput({ env: { COLUMNS: '80' }, stdout: pipe(), stderr: pipe() }).width).toBe(
      Number.POSITIVE_INFINITY,
    );
  });
});

describe('resolveOutputDir and RUNNER_OUTPUT (#20.3)', () => {
  const where = { manifestDir: '/m', manifestOutput: undefined, pipeline: 'p', runId: 'r' };
  it('takes RUNNER_OUTPUT as the root of default folders, one folder per pipeline and run', () => {
    const ctx = { cwd: '/cwd', env: { RUNNER_OUTPUT: 'out' }, global: {} };
    expect(resolveOutputDir(ctx, undefined, where)).toBe('/cwd/out/p/r');
    expect(resolveOutputDir({ ...ctx, env: {} }, undefined, where)).toBe('/m/runner-output/p/r');
  });

  it('lets --output and the manifest output win over it, and ignores it with --simulate', () => {
    const ctx = { cwd: '/cwd', env: { RUNNER_OUTPUT: '/r' }, global: {} };
    expect(resolveOutputDir(ctx, 'o', where)).toBe('/cwd/o');
    expect(resolveOutputDir(ctx, undefined, { ...where, manifestOutput: 'mine' })).toBe('/m/mine/r');
    expect(resolveOutputDir({ ...ctx, global: { simulate: true } }, undefined, where)).toBe(
      '/m/runner-output/p/r',
    );
  });
});

describe('resolveOutputDir (issue 20 item 5: a folder per run)', () => {
  const where = { manifestDir: '/m', manifestOutput: undefined, pipeline: 'p', runId: 'n1' };

  it('gives every run its own folder under the default and under manifest `output:`', () => {
    expect(resolveOutputDir({ cwd: '/c' }, undefined, where)).toBe('/m/runner-output/p/n1');
    expect(resolveOutputDir({ cwd: '/c' }, undefined, { ...where, runId: 'n3' })).toBe(
      '/m/runner-output/p/n3',
    );
    expect(resolveOutputDir({ cwd: '/c' }, undefined, { ...where, manifestOutput: 'out' })).toBe('/m/out/n1');
    expect(resolveOutputDir({ cwd: '/c' }, undefined, { ...where, runId: '../x' })).toBe(
      '/m/runner-output/p/__x',
    );
  });

  it("uses --output as named, else the folder the run recorded when it is this machine's (#30.1)", () => {
    expect(resolveOutputDir({ cwd: '/c' }, 'mine', where)).toBe('/c/mine');
    expect(
      resolveOutputDir({ cwd: '/c' }, undefined, {
        ...where,
        recordedOutputDir: '/kept',
        recordedHere: true,
      }),
    ).toBe('/kept');
    // Another machine's path (a CI re-run on a fresh runner): this machine resolves its own.
    expect(resolveOutputDir({ cwd: '/c' }, undefined, { ...where, recordedOutputDir: '/kept' })).toBe(
      '/m/runner-output/p/n1',
    );
    expect(resolveOutputDir({ cwd: '/c' }, 'mine', { ...where, recordedOutputDir: '/kept' })).toBe('/c/mine');
  });
});

describe('applyWriteTargets', () => {
  const ctx = { cwd: '/c', global: {}, env: {} };
  const run = {
    manifestFile: '/m/p.yaml',
    manifestDir: '/m',
    manifestOutput: undefined,
    pipeline: 'p',
    runId: 'r',
    simulated: false,
  };

  it('checks --junit, --report and GITHUB_STEP_SUMMARY before any request', () => {
    const targets = applyWriteTargets(
      { ...ctx, env: { GITHUB_STEP_SUMMARY: '/gh/summary.md' } },
      parseApplyOptions({ junit: 'j.xml', report: 'r.html' }),
    );
    expect(targets.filter((target) => target.replaced === true).map((target) => target.what)).toEqual([
      '--junit',
      '--report',
    ]);
    expect(targets.map((target) => [target.what, target.path])).toEqual([
      ['--junit', 'j.xml'],
      ['GITHUB_STEP_SUMMARY', '/gh/summary.md'],
      ['--report', 'r.html'],
    ]);
  });

  it('keeps the upload cache in --state-dir, and checks a report the manifest moves', () => {
    const targets = applyWriteTargets(ctx, parseApplyOptions({ stateDir: '/s' }), {
      ...run,
      manifestReport: 'pages/r.html',
    });
    expect(targets.map((target) => [target.what, target.path])).toEqual([
      ['output folder', '/m/runner-output/p/r'],
      ['report', '/m/pages/r.html'],
      ['state folder', '/s/p/r'],
      ['upload cache', '/s/uploads.json'],
    ]);
  });
});
