import { describe, expect, it } from 'vitest';
import { RunnerError } from '../../../src/errors.js';
import type { Manifest, ValidationIssue } from '../../../src/manifest/types.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import { plannedJob } from './plan-fixtures.js';

const manifest: Manifest = { version: 1, name: 'coffee-ads', budget: 120, jobs: [{ id: 'a' }] };
const warning: ValidationIssue = {
  severity: 'warning',
  code: 'prompt-too-short',
  message: 'short',
  jobId: 'a',
};

describe('buildPlan', () => {
  it('assembles the plan from the manifest and the planned jobs', () => {
    const jobs = [plannedJob('a')];
    expect(
      buildPlan({ loaded: { file: 'coffee.yaml', manifest }, planned: jobs, warnings: [warning] }),
    ).toEqual({
      pipeline: 'coffee-ads',
      manifestFile: 'coffee.yaml',
      jobs,
      warnings: [warning],
      budget: 120,
    });
    const { budget: _b, ...noBudget } = manifest;
    expect(
      buildPlan({ loaded: { file: 'c.yaml', manifest: noBudget }, planned: [], warnings: [] }),
    ).not.toHaveProperty('budget');
  });

  it('refuses to build a plan from a manifest with errors', () => {
    const error: ValidationIssue = { severity: 'error', code: 'unknown-model', message: 'x' };
    expect(() =>
      buildPlan({ loaded: { file: 'c.yaml', manifest }, planned: [], warnings: [warning, error] }),
    ).toThrow(RunnerError);
  });
});
