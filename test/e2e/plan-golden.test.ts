import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const goldenDir = `${repo}test/fixtures/plan-golden/`;
const cases = JSON.parse(readFileSync(`${goldenDir}cases.json`, 'utf8')) as {
  name: string;
  args: string[];
}[];

/**
 * `runner plan` output, byte for byte, against what the plan implementation before the streaming
 * rewrite (issue #8) printed for the same input: text, JSON and markdown, targeting, verdicts and
 * validation errors. The goldens come from `test/fixtures/plan-golden/generate.mjs`.
 */
describe('runner plan golden outputs (built binary)', () => {
  it.each(cases)('$name', async ({ name, args }) => {
    const result = await runCli(
      [...args, '--offline', '--catalog', 'test/fixtures/plan-golden/catalog.json'],
      {
        cwd: repo,
      },
    );
    const golden = (ext: string): string => readFileSync(`${goldenDir}out/${name}.${ext}`, 'utf8');
    expect(stable(result.stdout)).toBe(golden('out'));
    expect(result.stderr).toBe(golden('err'));
    expect(`${result.code}\n`).toBe(golden('code'));
  });
});

/**
 * The JSON report shows each job's prompt and payload hash, and a prompt may hold `{{ date }}` (today,
 * for a run not started): dates and hashes are replaced, so the goldens hold on any day.
 * generate.mjs writes them the same way.
 */
function stable(text: string): string {
  return text
    .replace(/\b\d{4}-\d{2}-\d{2}\b/g, '<date>')
    .replace(/"payloadHash": "[0-9a-f]{64}"/g, '"payloadHash": "<hash>"');
}
