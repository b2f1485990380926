import { describe, it, expect, beforeEach, afterEach, vi } from 'vitest';
import {
  mkdtemp,
  open,
  readdir,
  readFile,
  rm,
  stat,
  utimes,
  writeFile,
  type FileHandle,
} from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireLock } from '../../../src/state/backends/folder/lock.js';
import { isProcessAlive } from '../../../src/process-alive.js';
import { readHostIdentity } from '../../../src/state/backends/folder/lock-identity.js';
import { isRunnerError } from '../../../src/errors.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('acquireLock', () => {
  it('creates the lock with pid, host and start time (mode 0600) and releases it', async () => {
    const lock = await acquireLock(dir, { pid: 1234, now: () => Date.UTC(2026, 0, 1) });
    expect(lock.warning).toBeUndefined();
    const content = JSON.parse(await readFile(lock.path, 'utf8')) as Record<string, unknown>;
    expect(content).toEqual({
      pid: 1234,
      ...readHostIdentity(),
      startedAt: '2026-01-01T00:00:00.000Z',
      token: expect.stringMatching(/^[0-9a-f]{16}$/),
      staleAfterMs: 30_000,
    });
    expect((await stat(lock.path)).mode & 0o777).toBe(0o600);
    await lock.release();
    expect(existsSync(lock.path)).toBe(false);
  });

  it('refuses a lock held by a live process, naming its pid', async () => {
    await writeFile(
      join(dir, 'lock'),
      JSON.stringify({ pid: 999_999, ...readHostIdentity(), startedAt: '2026-01-01T00:00:00.000Z' }),
    );
    let caught: unknown;
    try {
      await acquireLock(dir, { pid: 1, isAlive: (pid) => pid === 999_999 });
    } catch (error) {
      caught = error;
    }
    expect(isRunnerError(caught) && caught.code).toBe('STATE_LOCKED');
    expect((caught as Error).message).toContain('pid 999999');
    expect((caught as Error).message).toContain(dir);
  });

  it('takes over a stale lock with a warning', async () => {
    await writeFile(
      join(dir, 'lock'),
      JSON.stringify({ pid: 999_999, ...readHostIdentity(), startedAt: 'then' }),
    );
    const lock = await acquireLock(dir, { pid: 77, isAlive: () => false });
    expect(lock.warning).toMatch(/stale lock.*pid 999999/);
    const content = JSON.parse(await readFile(lock.path, 'utf8')) as { pid: number };
    expect(content.pid).toBe(77);
    await lock.release();
  });

  it('takes over a lock with its own pid left by a crashed earlier run (containers reuse pids)', async () => {
    await writeFile(
      join(dir, 'lock'),
      JSON.stringify({ pid: process.pid, ...readHostIdentity(), startedAt: 'then' }),
    );
    const lock = await acquireLock(dir);
    expect(lock.warning).toMatch(/stale/);
    await lock.release();
  });

  it('takes over an empty lock left by a crash during its creation', async () => {
    await writeFile(join(dir, 'lock'), '');
    await expect(acquireLock(dir, { isAlive: () => true })).rejects.toMatchObject({ code: 'STATE_LOCKED' });
    const past = new Date(Date.now() - 60_000);
    await utimes(join(dir, 'lock'), past, past);
    const lock = await acquireLock(dir, { isAlive: () => true });
    expect(lock.warning).toMatch(/stale/);
    await lock.release();
  });

  it('is never seen empty or half-written: a runner stopped mid-write leaves no lock in the way', async () => {
    // The first runner's write stops halfway and stays stopped (a SIGKILL, a frozen machine).
    const stopped = await stopFirstWriteHalfway();
    const first = acquireLock(dir, { pid: 4242 });
    await stopped.reached;
    expect(await readdir(dir)).not.toContain('lock');
    // A resume right after the kill is not refused as "taking the lock right now".
    const second = await acquireLock(dir);
    expect(JSON.parse(await readFile(second.path, 'utf8'))).toMatchObject({ pid: process.pid });
    stopped.kill();
    await expect(first).rejects.toThrow(/killed/);
    expect(JSON.parse(await readFile(second.path, 'utf8'))).toMatchObject({ pid: process.pid });
    await second.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('refuses a second lock while the first is held by this live process', async () => {
    const first = await acquireLock(dir);
    await expect(acquireLock(dir, { pid: process.pid + 1 })).rejects.toMatchObject({ code: 'STATE_LOCKED' });
    await first.release();
  });
});

/**
 * Makes the next `FileHandle.writeFile` write half its text and stop there until `kill()`, which fails
 * it. (Mocked: a process killed between two system calls cannot be made to order.)
 */
async function stopFirstWriteHalfway(): Promise<{ reached: Promise<void>; kill: () => void }> {
  const probe = await open(join(dir, 'probe'), 'w');
  const prototype = Object.getPrototypeOf(probe) as FileHandle;
  await probe.close();
  await rm(join(dir, 'probe'));
  let reach: () => void = () => undefined;
  let kill: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const killed = new Promise<never>((_, reject) => (kill = () => reject(new Error('killed'))));
  const spy = vi.spyOn(prototype, 'writeFile').mockImplementationOnce(async function (
    this: FileHandle,
    data,
  ) {
    const text = String(data);
    await this.write(text.slice(0, text.length / 2));
    spy.mockRestore();
    reach();
    return killed;
  });
  return { reached, kill };
}

describe('isProcessAlive', () => {
  it('knows this process is alive and pid 0 is not a runner', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(0)).toBe(false);
  });
});

describe('when the holder started, in the lock messages a person reads', () => {
  /** A lock left by a runner started at a frozen instant, as its lock file records it (ISO). */
  const holderStarted = (pid: number) =>
    writeFile(
      join(dir, 'lock'),
      JSON.stringify({ pid, ...readHostIdentity(), startedAt: '2026-11-27T07:00:17.393Z', token: 'f00d' }),
    );

  it('says when the runner holding the lock started in UTC words, not ISO', async () => {
    await holderStarted(999_999);
    const error: unknown = await acquireLock(dir, { pid: 1, isAlive: (pid) => pid === 999_999 }).catch(
      (caught: unknown) => caught,
    );
    expect((error as Error).message).toContain(
      `(pid 999999 on ${readHostIdentity().hostname}, started 27 Nov 2026, 07:00 UTC, lock refreshed`,
    );
    expect(JSON.parse(await readFile(join(dir, 'lock'), 'utf8'))).toMatchObject({
      startedAt: '2026-11-27T07:00:17.393Z',
    });
  });

  it('says when the runner whose stale lock was taken over started, in UTC words', async () => {
    await holderStarted(999_999);
    const lock = await acquireLock(dir, { pid: 77, isAlive: () => false });
    expect(lock.warning).toContain(
      `runner pid 999999 on ${readHostIdentity().hostname} (started 27 Nov 2026, 07:00 UTC)`,
    );
    await lock.release();
  });

  it('says when the runner that took the lock away started, in UTC words', async () => {
    const lock = await acquireLock(dir, { pid: 77, heartbeatMs: 20 });
    await rm(lock.path);
    await holderStarted(1);
    for (let tries = 0; tries < 300; tries++) {
      try {
        lock.assertHeld();
      } catch {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(() => lock.assertHeld()).toThrow(
      `pid 1 on ${readHostIdentity().hostname} (started 27 Nov 2026, 07:00 UTC) took it`,
    );
    await lock.release();
  });
});
