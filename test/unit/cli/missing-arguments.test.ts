import { afterEach, describe, expect, it, vi } from 'vitest';
import { runInProcess } from './run-in-process.js';

/**
 * An optional argument left out is absent, not the word "undefined": cac hands the command an
 * undefined for it, and `String(undefined)` once made `runner state check` look for a manifest
 * named "undefined" and `runner help` refuse a topic named "undefined".
 */
describe('an optional argument left out', () => {
  it.each(['check', 'push', 'pull', 'lease'])(
    'runner state %s without a manifest says it needs one',
    async (action) => {
      const { code, stdout, stderr } = await runInProcess(['state', action]);
      expect(stderr).toContain(
        `runner state ${action} needs a manifest: runner state ${action} FILE --run ID.`,
      );
      expect(stdout + stderr).not.toContain('undefined');
      expect(code).toBe(2);
    },
  );

  afterEach(() => vi.restoreAllMocks());

  it('runner help without a topic shows the general help', async () => {
    // cac writes its help with console.info, not to the CLI's stdout.
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    const { code, stderr } = await runInProcess(['help']);
    expect(stderr).toBe('');
    const help = info.mock.calls.flat().join('\n');
    expect(help).toContain('Usage:');
    expect(help).toContain('Commands:');
    expect(code).toBe(0);
  });
});
