import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { describeGeneratedFile } from './describe-generated-file.js';

describeGeneratedFile(
  "src/generated/report-page.ts (the report page's modules bundled by scripts/bundle-report-page.js)",
  {
    script: 'scripts/bundle-report-page.js',
    fresh: 'is what the script bundles from the current src/report/page/ (else: npm run report-page)',
    staleName: 'is reported stale when it differs or is missing',
    async stale(dir, check) {
      const missing = await check(dir);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain(join(dir, 'report-page.ts'));
      await writeFile(join(dir, 'report-page.ts'), "export const REPORT_PAGE_SCRIPT = 'edited by hand';\n");
      const edited = await check(dir);
      expect(edited.code).toBe(1);
      expect(edited.stderr).toContain('npm run report-page');
    },
  },
);
