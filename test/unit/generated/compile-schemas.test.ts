import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const script = join(root, 'scripts/compile-schemas.js');
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

describe('src/generated (validators compiled from the schemas by scripts/compile-schemas.js)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-generated-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is what the script writes from the current schemas (else: npm run schemas)', async () => {
    const result = await check(generatedDir);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('is reported stale when a file differs or is missing', async () => {
    await cp(generatedDir, dir, { recursive: true });
    const names = await readdir(dir);
    expect(names).toContain('pipeline-validator.ts');
    await writeFile(join(dir, 'pipeline-validator.ts'), '// edited by hand\n');
    await rm(join(dir, 'api-validators.ts'));
    const result = await check(dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(join(dir, 'pipeline-validator.ts'));
    expect(result.stderr).toContain(join(dir, 'api-validators.ts'));
    expect(result.stderr).not.toContain('image-job-validator.ts');
    expect(result.stderr).toContain('npm run schemas');
  });
});
