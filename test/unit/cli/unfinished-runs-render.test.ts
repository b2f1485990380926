import { describe, expect, it } from 'vitest';
import { renderUnfinishedRuns } from '../../../src/cli/render/unfinished-runs.js';
import type { RunSummary } from '../../../src/state/run-summary.js';

const style = { yellow: (text: string) => text };
const plain = { manifestFile: 'm.yaml', options: {}, global: {} };

function run(runId: string, unfinished: RunSummary['unfinished'], outputDir?: string): RunSummary {
  return {
    runId,
    applies: 1,
    counts: { jobs: 8, pending: 0, creating: 0, open: 0, done: 0, failed: 0, deferred: 0, uncertain: 0 },
    creditsSpent: 0,
    dir: `/s/p/${runId}`,
    unfinished,
    warnings: [],
    ...(outputDir === undefined ? {} : { outputDir }),
  };
}

describe('renderUnfinishedRuns', () => {
  it('says nothing of finished runs', () => {
    expect(renderUnfinishedRuns([run('n1', { open: 0, undownloaded: 0, ids: [] })], plain, style)).toEqual(
      [],
    );
  });

  it('finishes a few jobs with --only and --max-credits 0, naming the state and output folders and the service', () => {
    const [line] = renderUnfinishedRuns(
      [run('k1', { open: 1, undownloaded: 1, ids: ['a b', 'c'] }, '/out/k 1')],
      {
        manifestFile: 'm.yaml',
        options: { stateDir: 'st', var: ['x=1'], run: 'today', output: 'elsewhere' },
        global: { baseUrl: 'https://svc.example/api/v2' },
      },
      style,
    );
    expect(line).toContain('run "k1" has 1 paid job still open and 1 done job with results not downloaded');
    expect(line).toContain(
      "Finish it with: runner apply m.yaml --run k1 --state-dir st --output '/out/k 1' --var x=1 --only 'a b' --only c --max-credits 0 --base-url https://svc.example/api/v2 (follows them",
    );
  });

  it('resumes the whole run when it left more jobs than it lists', () => {
    const [line] = renderUnfinishedRuns(
      [run('k2', { open: 12, undownloaded: 0, ids: ['a', 'b'] })],
      plain,
      style,
    );
    expect(line).toContain('Finish it with: runner apply m.yaml --run k2 (resumes that run');
  });

  it('downloads owed results only, creating nothing, when no job is open', () => {
    const [line] = renderUnfinishedRuns(
      [run('k3', { open: 0, undownloaded: 2, ids: ['a', 'b'] }, '/out/k3')],
      plain,
      style,
    );
    expect(line).toContain('2 done jobs with results not downloaded');
    expect(line).toContain('Finish it with: runner apply m.yaml --run k3 --output /out/k3 --download-only');
  });
});
