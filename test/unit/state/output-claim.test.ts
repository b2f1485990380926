import { mkdtemp, mkdir, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  claimOutputDir,
  judgeOutputClaim,
  OUTPUT_CLAIM_FILE,
  type OutputOwner,
} from '../../../src/state/output-claim.js';

const n1: OutputOwner = { pipeline: 'p', runId: 'n1', stateDir: '/s/p/n1' };

describe('judgeOutputClaim', () => {
  it('lets a run write its own folder and an unclaimed one', () => {
    expect(judgeOutputClaim(n1, n1, true)).toEqual({ verdict: 'mine' });
    expect(judgeOutputClaim(undefined, n1, false)).toEqual({ verdict: 'take-over' });
  });

  it('refuses another run id, another pipeline, and the same run id of another state folder', () => {
    expect(judgeOutputClaim(n1, { ...n1, runId: 'n3' }, true).verdict).toBe('refuse');
    expect(judgeOutputClaim(n1, { ...n1, pipeline: 'q' }, true).verdict).toBe('refuse');
    expect(judgeOutputClaim(n1, { ...n1, stateDir: '/other/p/n1' }, true)).toMatchObject({
      verdict: 'refuse',
      reason: expect.stringContaining('/s/p/n1') as unknown,
    });
    // Another run's files are kept even when that run's state is gone.
    expect(judgeOutputClaim(n1, { ...n1, runId: 'n3' }, false).verdict).toBe('refuse');
  });

  it('takes over the folder of its own run id whose state is gone (with a warning), and simulated runs', () => {
    expect(judgeOutputClaim(n1, { ...n1, stateDir: '/moved/p/n1' }, false)).toMatchObject({
      verdict: 'take-over',
      warning: expect.stringContaining('holds no journal') as unknown,
    });
    const simulated = { ...n1, simulated: true };
    expect(judgeOutputClaim(simulated, { ...simulated, stateDir: '/tmp/x', runId: 'n2' }, true)).toEqual({
      verdict: 'take-over',
    });
    expect(judgeOutputClaim(simulated, { ...n1, runId: 'n2' }, true).verdict).toBe('refuse');
  });
});

describe('claimOutputDir', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-claim-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('of runs claiming one folder at once, exactly one wins (and its claim stays)', async () => {
    const stateOf = async (run: string) => {
      const stateDir = join(dir, 'state', run);
      await mkdir(stateDir, { recursive: true });
      await writeFile(join(stateDir, 'journal.jsonl'), '');
      return { pipeline: 'p', runId: run, stateDir };
    };
    const owners = await Promise.all(['a', 'b', 'c', 'd', 'e', 'f'].map(stateOf));
    // Rounds, so that the interleavings vary: the check, the exclusive create and the write of each.
    for (let round = 0; round < 25; round++) {
      const out = join(dir, `out-${round}`);
      const outcomes = await Promise.allSettled(owners.map((owner) => claimOutputDir(out, owner)));
      const winners = owners.filter((_, index) => outcomes[index]?.status === 'fulfilled');
      expect(winners).toHaveLength(1);
      const claim = JSON.parse(await readFile(join(out, OUTPUT_CLAIM_FILE), 'utf8')) as OutputOwner;
      expect(claim.runId).toBe(winners[0]?.runId);
      // The winner claims it again (a resume) without complaint.
      await expect(claimOutputDir(out, winners[0] ?? n1)).resolves.toBeUndefined();
    }
  });

  it('refuses a folder whose claim file cannot be read', async () => {
    await writeFile(join(dir, OUTPUT_CLAIM_FILE), 'not json');
    await expect(claimOutputDir(dir, n1)).rejects.toThrow(/cannot be read as a run's claim/);
  });

  it('takes over an empty claim a run killed mid-write left, once it is not being written', async () => {
    // What a SIGKILL between creating the claim file and writing it left (seen in crash-resume, seed
    // 11): every later run, the killed run's resume too, was refused for good.
    const file = join(dir, OUTPUT_CLAIM_FILE);
    await writeFile(file, '');
    const inAMinute = new Date(Date.now() + 60_000);
    await utimes(file, inAMinute, inAMinute);
    await expect(claimOutputDir(dir, n1)).rejects.toThrow(/cannot be read as a run's claim/);
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await utimes(file, anHourAgo, anHourAgo);
    await expect(claimOutputDir(dir, n1)).resolves.toMatch(/was empty, left by a run killed/);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ runId: 'n1' });
    await expect(claimOutputDir(dir, n1)).resolves.toBeUndefined();
  });

  it('places a claim whole, and clears the temporaries of writers that died on this host', async () => {
    const dead = `${OUTPUT_CLAIM_FILE}.${hostname()}.999999999.0badf00d.tmp`;
    const otherHost = `${OUTPUT_CLAIM_FILE}.elsewhere.1.0badf00d.tmp`;
    await writeFile(join(dir, dead), '{"pipeline":');
    await writeFile(join(dir, otherHost), '{"pipeline":');
    await expect(claimOutputDir(dir, n1)).resolves.toBeUndefined();
    expect((await readdir(dir)).sort()).toEqual([OUTPUT_CLAIM_FILE, otherHost].sort());
    expect(JSON.parse(await readFile(join(dir, OUTPUT_CLAIM_FILE), 'utf8'))).toMatchObject(n1);
  });
});
