import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listRuns } from '../../../src/state/backends/folder/list-runs.js';
import { locateRunState } from '../../../src/state/backends/folder/locate-run-state.js';
import { openRunState } from '../../../src/state/backends/folder/open-run-state.js';

let dir: string;
let manifestFile: string;
let stateDir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-layout-'));
  manifestFile = join(dir, 'm.yaml');
  stateDir = join(dir, 'persistent');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const runRecord = (pipeline: string, runId: string, at = 1) =>
  JSON.stringify({ type: 'run', at, runId, pipeline, pid: 1, manifestFile: 'm.yaml' });
const intent = (id: string) => JSON.stringify({ type: 'intent', at: 2, id, attempt: 1, payloadHash: 'h' });

async function applyOnce(pipeline: string, runId: string, jobId: string) {
  const state = await openRunState({ manifestFile, pipeline, runId, stateDir });
  await state.journal.append({ type: 'run', runId, pipeline, pid: 1, manifestFile });
  await state.journal.append({ type: 'intent', id: jobId, attempt: 1, payloadHash: 'h' });
  await state.close();
  return state;
}

describe('--state-dir keeps one journal per pipeline and run (#7.1)', () => {
  it('gives each run and each pipeline its own folder under the state dir', async () => {
    const night1 = await applyOnce('nightly', '2026-11-22', 'a');
    const night2 = await applyOnce('nightly', '2026-11-23', 'b');
    const other = await applyOnce('weekly', '2026-11-22', 'c');
    expect(night1.dir).toBe(join(stateDir, 'nightly', '2026-11-22'));
    expect(night2.dir).toBe(join(stateDir, 'nightly', '2026-11-23'));
    expect(other.dir).toBe(join(stateDir, 'weekly', '2026-11-22'));
    const again = await openRunState({ manifestFile, pipeline: 'nightly', runId: '2026-11-23', stateDir });
    expect([...again.jobs.keys()]).toEqual(['b']);
    await again.close();

    const runs = await listRuns({ manifestFile, pipeline: 'nightly', stateDir });
    expect(runs.runs.map((run) => [run.runId, run.applies, run.counts.jobs, run.counts.creating])).toEqual([
      ['2026-11-22', 1, 1, 1],
      ['2026-11-23', 1, 1, 1],
    ]);
  });

  it('refuses a journal whose header names another run, even in the right folder', async () => {
    const target = join(stateDir, 'p', 'r2');
    await mkdir(target, { recursive: true });
    await writeFile(
      join(target, 'journal.jsonl'),
      `${JSON.stringify({ type: 'journal', at: 1, version: 2, pipeline: 'p', runId: 'r1' })}\n${intent('a')}\n`,
    );
    await expect(openRunState({ manifestFile, pipeline: 'p', runId: 'r2', stateDir })).rejects.toMatchObject({
      code: 'STATE_MISMATCH',
      message: expect.stringMatching(
        /belongs to pipeline "p" run "r1", not to pipeline "p" run "r2"/,
      ) as unknown,
    });
  });

  it('refuses a headerless journal whose run records name another pipeline', async () => {
    const target = join(stateDir, 'a_b', 'r');
    await mkdir(target, { recursive: true });
    await writeFile(join(target, 'journal.jsonl'), `${runRecord('a_b', 'r')}\n${intent('a')}\n`);
    // "a b" reduces to the folder of "a_b".
    await expect(openRunState({ manifestFile, pipeline: 'a b', runId: 'r', stateDir })).rejects.toMatchObject(
      {
        code: 'STATE_MISMATCH',
      },
    );
    const state = await openRunState({ manifestFile, pipeline: 'a_b', runId: 'r', stateDir });
    expect(state.jobs.has('a')).toBe(true);
    await state.close();
  });
});

describe('a journal of the old flat --state-dir layout', () => {
  it('is still used by its own run, so none of its jobs is paid for again', async () => {
    await mkdir(stateDir, { recursive: true });
    await writeFile(join(stateDir, 'journal.jsonl'), `${runRecord('p', 'nightly')}\n${intent('a')}\n`);
    const state = await openRunState({ manifestFile, pipeline: 'p', runId: 'nightly', stateDir });
    expect(state.dir).toBe(stateDir);
    expect(state.jobs.has('a')).toBe(true);
    expect(state.warnings).toEqual([expect.stringMatching(/layout of earlier releases/)]);
    await state.close();
    // No header is added to an old journal: it stays readable by the release that wrote it.
    expect(await readFile(join(stateDir, 'journal.jsonl'), 'utf8')).not.toMatch(/"type":"journal"/);
  });

  it('is left alone by other runs, which get their own folder', async () => {
    await mkdir(stateDir, { recursive: true });
    await writeFile(join(stateDir, 'journal.jsonl'), `${runRecord('p', 'night-1')}\n${intent('a')}\n`);
    const location = await locateRunState({ manifestFile, pipeline: 'p', runId: 'night-2', stateDir });
    expect(location.dir).toBe(join(stateDir, 'p', 'night-2'));
    expect(location.warnings).toEqual([]);
    const runs = await listRuns({ manifestFile, pipeline: 'p', stateDir });
    expect(runs.runs.map((run) => run.runId)).toEqual(['night-1']);
  });

  it('is refused when it mixes this run with others (its jobs cannot be told apart)', async () => {
    await mkdir(stateDir, { recursive: true });
    await writeFile(
      join(stateDir, 'journal.jsonl'),
      `${runRecord('p', 'night-1')}\n${intent('a')}\n${runRecord('p', 'night-2', 5)}\n`,
    );
    await expect(
      locateRunState({ manifestFile, pipeline: 'p', runId: 'night-2', stateDir }),
    ).rejects.toMatchObject({
      code: 'STATE_MISMATCH',
      message: expect.stringMatching(/holds several runs in one journal.*night-1.*night-2/) as unknown,
    });
    // A third run is not concerned.
    const third = await locateRunState({ manifestFile, pipeline: 'p', runId: 'night-3', stateDir });
    expect(third.dir).toBe(join(stateDir, 'p', 'night-3'));
  });
});
