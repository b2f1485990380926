import { describe, expect, it } from 'vitest';
import { expandJobs } from '../../../src/manifest/expand-jobs.js';
import { context, loadInline } from './helpers.js';

describe('a name that only some include entries define', () => {
  it('is explained, not answered with "did you mean" the very same name', async () => {
    const loaded = await loadInline(`version: 1
name: inc
jobs:
  - id: "hero-{{ p }}"
    model: m
    prompt: "coffee {{ size }}"
    matrix:
      p: [latte, mocha]
      include: [{ p: latte, size: L }]
`);
    const [issue] = expandJobs(loaded, context).issues;
    expect(issue).toMatchObject({
      code: 'undefined-variable',
      message: 'undefined variable "size" in jobs[0].prompt of job "hero-mocha" (jobs[0], p=mocha)',
      hint: '"size" has a value in some combinations of this matrix but not in this one (include entries set keys for some combinations only); give every combination a value for it, or stop using it here',
    });
  });
});
