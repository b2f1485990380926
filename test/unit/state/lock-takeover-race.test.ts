import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireLock, type FolderLock } from '../../../src/state/backends/folder/lock.js';
import { readHostIdentity } from '../../../src/state/backends/folder/lock-identity.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-lock-race-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const STALE_PID = 4_000_000;

/** Every contender is a live runner (pids from 1000); only the stale lock's pid is gone. */
const isAlive = (pid: number) => pid >= 1000 && pid < STALE_PID;

async function writeStaleLock(): Promise<void> {
  await writeFile(
    join(dir, 'lock'),
    JSON.stringify({ pid: STALE_PID, ...readHostIdentity(), startedAt: '2026-01-01T00:00:00.000Z' }),
  );
}

describe('stale lock takeover under contention (#11.1)', () => {
  it('lets exactly one of many runners started together take over a stale lock', async () => {
    for (let trial = 0; trial < 40; trial++) {
      await writeStaleLock();
      // Staggered starts vary which contender is between its read and its unlink when another creates.
      const contenders = Array.from({ length: 8 }, async (_, index) => {
        await new Promise((resolve) => setTimeout(resolve, (index * 7 + trial) % 4));
        return acquireLock(dir, { pid: 1000 + trial * 10 + index, isAlive });
      });
      const settled = await Promise.allSettled(contenders);
      const winners = settled.filter(
        (result): result is PromiseFulfilledResult<FolderLock> => result.status === 'fulfilled',
      );
      const losers = settled.filter((result) => result.status === 'rejected');
      expect(winners, `trial ${trial}`).toHaveLength(1);
      for (const loser of losers) {
        expect(loser.reason).toMatchObject({ code: 'STATE_LOCKED' });
      }
      const winner = winners[0]?.value;
      // The lock on disk is the winner's, and the winner can prove it before its first create.
      const onDisk = JSON.parse(await readFile(join(dir, 'lock'), 'utf8')) as { pid: number };
      expect(onDisk.pid).toBeGreaterThanOrEqual(1000);
      await expect(winner?.verify()).resolves.toBeUndefined();
      await winner?.release();
    }
  });

  it('verify() fails and release() keeps the lock once another runner holds it', async () => {
    const lock = await acquireLock(dir, { pid: 1001, isAlive });
    const other = JSON.stringify({ pid: 1002, hostname: hostname(), startedAt: 'now', token: 'x' });
    await writeFile(join(dir, 'lock'), other);
    await expect(lock.verify()).rejects.toMatchObject({
      code: 'STATE_LOCKED',
      message: expect.stringMatching(/no longer holds the lock.*pid 1002/) as unknown,
    });
    await lock.release();
    expect(await readFile(join(dir, 'lock'), 'utf8')).toBe(other);
  });

  it('clears a takeover guard abandoned by a runner that died mid-takeover', async () => {
    await writeStaleLock();
    const guard = join(dir, 'lock.takeover');
    await writeFile(guard, JSON.stringify({ pid: STALE_PID + 1, hostname: hostname(), startedAt: 'then' }));
    const past = new Date(Date.now() - 60_000);
    await utimes(guard, past, past);
    const lock = await acquireLock(dir, { pid: 1003, isAlive });
    expect(lock.warning).toMatch(/stale lock/);
    expect(existsSync(guard)).toBe(false);
    await lock.release();
  });

  it('waits out a takeover guard of a runner that died mid-takeover a moment ago', async () => {
    await writeStaleLock();
    const guard = join(dir, 'lock.takeover');
    await writeFile(guard, JSON.stringify({ pid: STALE_PID + 1, hostname: hostname(), startedAt: 'then' }));
    const recent = new Date(Date.now() - 2_500);
    await utimes(guard, recent, recent);
    const lock = await acquireLock(dir, { pid: 1004, isAlive });
    expect(lock.warning).toMatch(/stale lock/);
    await lock.release();
  });
});
