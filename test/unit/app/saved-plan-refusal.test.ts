import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { refuseChangedPlan } from '../../../src/app/saved-plan-io.js';
import type { SavedPlan } from '../../../src/plan/saved-plan.js';
import { useTempDir } from '../../temp-dir.js';

const dir = useTempDir('runner-saved-plan-refusal-');

describe('a saved plan refused because its manifest changed', () => {
  it('says when the plan was made in UTC words, not ISO', async () => {
    const manifestFile = join(dir.path, 'm.yaml');
    await writeFile(manifestFile, 'name: p\n');
    // Only what the manifest's comparison reads: when the plan was made, and the manifest it was made of.
    const saved = {
      createdAt: '2026-11-27T07:00:17.393Z',
      manifest: { file: 'm.yaml', path: 'm.yaml', sha256: 'a'.repeat(64) },
    } as SavedPlan;
    await expect(refuseChangedPlan('plan.json', saved, { manifestFile })).rejects.toThrow(
      'Not applying plan.json: 1 thing changed since the plan was made (27 Nov 2026, 07:00 UTC):\n  - the manifest m.yaml changed',
    );
  });
});
