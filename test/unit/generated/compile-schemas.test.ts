import { cp, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { describeGeneratedFile, generatedDir } from './describe-generated-file.js';

describeGeneratedFile('src/generated (validators compiled from the schemas by scripts/compile-schemas.js)', {
  script: 'scripts/compile-schemas.js',
  fresh: 'is what the script writes from the current schemas (else: npm run schemas)',
  staleName: 'is reported stale when a file differs or is missing',
  async stale(dir, check) {
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
  },
});
