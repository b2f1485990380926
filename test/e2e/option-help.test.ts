import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

/** Help texts agree with behaviour (issue #7.7). */
describe('command help (built binary)', () => {
  it('shows only the global flags a command reads, and no "(default: true)" on negated flags', async () => {
    const status = await runCli(['status', '--help']);
    expect(status.stdout).toContain('--state-dir');
    expect(status.stdout).not.toMatch(/--base-url|--simulate|--log-file/);
    const apply = await runCli(['apply', '--help']);
    expect(apply.stdout).toMatch(/--log-file/);
    expect(apply.stdout).toContain('runner-output/<pipeline>/');
    expect(apply.stdout).not.toContain('(default: true)');
    const plan = await runCli(['plan', '--help']);
    expect(plan.stdout).toContain('--max-credits');
    expect(plan.stdout).toContain('--log-file');
  });
});
