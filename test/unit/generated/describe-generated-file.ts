import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The repository's src/generated, which the scripts write and `--check` compares. */
export const generatedDir = join(root, 'src/generated');

export interface CheckResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `node <script> --check --dir <dir>`: exit 0 when the folder holds what the script writes. */
export type CheckGenerated = (dir: string) => Promise<CheckResult>;

/**
 * The two tests every generated file has: the committed file is what its script writes now, and
 * `--check` reports a stale copy (`stale` edits a copy in an empty temporary folder, `dir`, and
 * asserts what `check` says of it).
 */
export function describeGeneratedFile(
  title: string,
  generated: {
    /** The script, from the repository's root (`scripts/compile-schemas.js`). */
    script: string;
    /** The name of the test that the committed file is fresh. */
    fresh: string;
    /** The name of the test that a stale copy is reported. */
    staleName: string;
    stale: (dir: string, check: CheckGenerated) => Promise<void>;
  },
): void {
  const script = join(root, generated.script);
  const check: CheckGenerated = async (dir) => {
    try {
      const { stdout, stderr } = await promisify(execFile)(process.execPath, [
        script,
        '--check',
        '--dir',
        dir,
      ]);
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as CheckResult;
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  };

  describe(title, () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'runner-generated-'));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it(generated.fresh, async () => {
      const result = await check(generatedDir);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    });

    it(generated.staleName, () => generated.stale(dir, check));
  });
}
