import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const script = join(root, 'scripts/bundle-report-page.js');
const generatedDir = join(root, 'src/generated');

async function check(dir: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [script, '--check', '--dir', dir]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe("src/generated/report-page.ts (the report page's modules bundled by scripts/bundle-report-page.js)", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-report-page-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is what the script bundles from the current src/report/page/ (else: npm run report-page)', async () => {
    const result = await check(generatedDir);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('is reported stale when it differs or is missing', async () => {
    const missing = await check(dir);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(join(dir, 'report-page.ts'));
    await writeFile(join(dir, 'report-page.ts'), "export const REPORT_PAGE_SCRIPT = 'edited by hand';\n");
    const edited = await check(dir);
    expect(edited.code).toBe(1);
    expect(edited.stderr).toContain('npm run report-page');
  });
});
