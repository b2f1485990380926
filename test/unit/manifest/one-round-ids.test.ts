import { describe, expect, it } from 'vitest';
import { expandJobs } from '../../../src/manifest/expand-jobs.js';
import { context, loadInline } from './helpers.js';

describe('expandJobs: duplicate ids in the same round as the other errors (#20.10)', () => {
  it('reports a duplicate id even when one of its jobs fails another check', async () => {
    const loaded = await loadInline(`version: 1
name: one-round
defaults: { model: m }
jobs:
  - id: a
    prompt: A watercolor of {{ animal }} in a forest
  - id: a
    prompt: A watercolor of an owl in a forest at night
  - id: "b-{{ n }}"
    matrix: { n: [1, 2] }
    prompt: "A watercolor of {{ missing }} number {{ n }}"
  - id: b-2
    prompt: A watercolor of a heron
`);
    const { jobs, issues } = expandJobs(loaded, context);
    // Only the jobs without errors expand; the failed ones take no position.
    expect(jobs.map((job) => job.id)).toEqual(['a', 'b-2']);
    const codes = issues.map((issue) => `${issue.code} ${issue.jobId ?? ''}`.trim());
    expect(codes).toContain('duplicate-id a');
    expect(codes).toContain('duplicate-id b-2');
    expect(codes.filter((code) => code.startsWith('undefined-variable'))).toHaveLength(2);
    const a = issues.find((issue) => issue.code === 'duplicate-id' && issue.jobId === 'a');
    // Named in manifest order, located at the second producer.
    expect(a?.message).toMatch(/by jobs\[0\] .* and by jobs\[1\]/);
    expect(a?.location?.line).toBe(7);
  });

  it('reports nothing for ids that failed jobs produce once', async () => {
    const loaded = await loadInline(`version: 1
name: one-round
defaults: { model: m }
jobs:
  - id: a
    prompt: A watercolor of {{ animal }} in a forest
  - id: b
    prompt: A watercolor of an owl in a forest at night
`);
    const { issues } = expandJobs(loaded, context);
    expect(issues.map((issue) => issue.code)).toEqual(['undefined-variable']);
  });
});
