import { describe, expect, it } from 'vitest';
import { loadManifest } from '../../../src/manifest/load-manifest.js';
import { validateManifestOffline } from '../../../src/manifest/validate-manifest.js';

const context = { env: {}, date: '2026-11-21' };

describe('schema errors inside job entries', () => {
  const source = `version: 1
name: scoped
defaults: { model: m }
jobs:
  - id: good
    prompt: A lighthouse on a cliff at dawn
  - id: broken
    promt: A typo in the key
  - id: "also-{{ missing }}"
    prompt: A harbour at night
`;

  it('keep the manifest loaded with those entries marked, so the other jobs are still checked', async () => {
    const { loaded, issues } = await loadManifest('p.yaml', { source });
    expect(issues.map((issue) => issue.code)).toEqual(['unknown-key']);
    expect(loaded?.invalidJobs).toEqual(new Set([1]));

    const offline = await validateManifestOffline('p.yaml', { ...context, source });
    expect(offline.jobs.map((job) => job.id)).toEqual(['good']);
    expect(offline.issues.map((issue) => [issue.code, issue.location?.line])).toEqual([
      ['unknown-key', 8],
      ['undefined-variable', 9],
    ]);
  });

  it('stop at the schema when an error lies outside the job entries', async () => {
    const { loaded, issues } = await loadManifest('p.yaml', {
      source: source.replace('name: scoped', 'nmae: scoped'),
    });
    expect(loaded).toBeUndefined();
    expect(issues.map((issue) => issue.code)).toContain('unknown-key');
  });
});
