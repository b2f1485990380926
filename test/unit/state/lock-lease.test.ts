import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, readFile, rm, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireLock } from '../../../src/state/backends/folder/lock.js';
import { isSamePidSpace, readHostIdentity } from '../../../src/state/backends/folder/lock-identity.js';
import type { HostIdentity } from '../../../src/state/lock-options.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-lock-lease-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Two containers on one host sharing a state volume: same hostname and boot, each its own pid namespace. */
const containerA: HostIdentity = { hostname: 'node-1', bootId: 'boot-1', pidNamespace: 'pid:[4026532001]' };
const containerB: HostIdentity = { hostname: 'node-1', bootId: 'boot-1', pidNamespace: 'pid:[4026532002]' };
/** Every pid 1 is alive in its own container; none is alive as seen from another (ESRCH). */
const nothingAlive = () => false;

describe('the state lock as a lease (#24.1)', () => {
  it('does not let a second container with the same pid take a live lease, naming holder, host and age', async () => {
    const first = await acquireLock(dir, { pid: 1, identity: containerA, isAlive: nothingAlive });
    const error: unknown = await acquireLock(dir, {
      pid: 1,
      identity: containerB,
      isAlive: nothingAlive,
    }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'STATE_LOCKED' });
    expect((error as Error).message).toMatch(/pid 1 on node-1, started .*, lock refreshed \d+(\.\d)? s ago/);
    expect((error as { hint: string }).hint).toContain('30 s');
    await expect(first.verify()).resolves.toBeUndefined();
    await first.release();
  });

  it('does not judge a holder on another host by its pid, nor where /proc proves nothing', async () => {
    const first = await acquireLock(dir, {
      pid: 4242,
      identity: { hostname: 'runner-a' },
      isAlive: nothingAlive,
    });
    for (const identity of [
      { hostname: 'runner-b', bootId: 'b', pidNamespace: 'p' },
      { hostname: 'runner-a' },
    ]) {
      await expect(acquireLock(dir, { pid: 7, identity, isAlive: nothingAlive })).rejects.toMatchObject({
        code: 'STATE_LOCKED',
      });
    }
    await first.release();
  });

  it('takes over at once from a dead pid in the same host, boot and PID namespace', async () => {
    const first = await acquireLock(dir, { pid: 1234, identity: containerA, isAlive: nothingAlive });
    const second = await acquireLock(dir, { pid: 5678, identity: containerA, isAlive: nothingAlive });
    expect(second.warning).toMatch(/pid 1234 on node-1 .*is no longer running/);
    await expect(first.verify()).rejects.toMatchObject({ code: 'STATE_LOCKED' });
    await second.release();
    await first.release();
  });

  it('takes over a lease not refreshed for the stale time; the first then creates nothing', async () => {
    const first = await acquireLock(dir, { pid: 1, identity: containerA, isAlive: nothingAlive });
    // The first stops refreshing (frozen): its lock's age passes the stale time as the second sees it.
    const later = () => Date.now() + 31_000;
    const second = await acquireLock(dir, {
      pid: 1,
      identity: containerB,
      isAlive: nothingAlive,
      now: later,
    });
    expect(second.warning).toMatch(/has not refreshed it for 3\d(\.\d)? s \(stale after 30 s\)/);
    await expect(first.verify()).rejects.toMatchObject({
      code: 'STATE_LOCKED',
      message: expect.stringMatching(/no longer holds the lock.*pid 1 on node-1/) as unknown,
    });
    expect(() => first.assertHeld()).toThrow(/no longer holds the lock/);
    await first.release();
    // The first's release leaves the second's lock in place.
    expect(JSON.parse(await readFile(second.path, 'utf8'))).toMatchObject({
      pidNamespace: containerB.pidNamespace,
    });
    await second.release();
  });

  it('stops a holder whose own lease lapsed (paused past half the stale time), before anyone takes over', async () => {
    let offset = 0;
    const lock = await acquireLock(dir, {
      identity: containerA,
      staleAfterMs: 1_000,
      heartbeatMs: 60_000,
      now: () => Date.now() + offset,
    });
    await expect(lock.verify()).resolves.toBeUndefined();
    offset = 600;
    await expect(lock.verify()).rejects.toMatchObject({
      code: 'STATE_LOCKED',
      message: expect.stringMatching(/paused or could not refresh the lock for 0\.6 s/) as unknown,
    });
    // Lost for good: the lease is not renewed behind a contender's back.
    offset = 0;
    expect(() => lock.assertHeld()).toThrow(/no longer holds/);
    await lock.release();
  });

  it('refreshes the lock every heartbeat, so a live holder never looks stale', async () => {
    const lock = await acquireLock(dir, { identity: containerA, heartbeatMs: 20, staleAfterMs: 60_000 });
    const before = await readFile(lock.path, 'utf8');
    const past = new Date(Date.now() - 120_000);
    await utimes(lock.path, past, past);
    for (let tries = 0; tries < 200 && (await stat(lock.path)).mtimeMs < Date.now() - 60_000; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect((await stat(lock.path)).mtimeMs).toBeGreaterThan(Date.now() - 60_000);
    expect(await readFile(lock.path, 'utf8')).toBe(before);
    await expect(acquireLock(dir, { pid: 1, identity: containerB })).rejects.toMatchObject({
      code: 'STATE_LOCKED',
    });
    await lock.release();
  });

  it('notices within a heartbeat that another runner took the lock, so journal writes stop too', async () => {
    const lock = await acquireLock(dir, { identity: containerA, heartbeatMs: 20 });
    expect(() => lock.assertHeld()).not.toThrow();
    // As a takeover does it: the stale lock removed, a new one created in its place.
    await unlink(lock.path);
    await writeFile(lock.path, JSON.stringify({ pid: 1, ...containerB, startedAt: 'now', token: 'b' }));
    for (let tries = 0; tries < 300; tries++) {
      try {
        lock.assertHeld();
      } catch {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(() => lock.assertHeld()).toThrow(
      /no longer holds the lock .*: pid 1 on node-1 \(started now\) took it/,
    );
    await lock.release();
    expect(JSON.parse(await readFile(join(dir, 'lock'), 'utf8'))).toMatchObject({ token: 'b' });
  });

  it('uses the stale time the holder recorded', async () => {
    await writeFile(
      join(dir, 'lock'),
      JSON.stringify({ pid: 1, ...containerA, startedAt: 'then', token: 'a', staleAfterMs: 120_000 }),
    );
    const past = new Date(Date.now() - 60_000);
    await utimes(join(dir, 'lock'), past, past);
    await expect(acquireLock(dir, { pid: 1, identity: containerB })).rejects.toMatchObject({
      code: 'STATE_LOCKED',
    });
    const later = () => Date.now() + 61_000;
    const lock = await acquireLock(dir, { pid: 1, identity: containerB, now: later });
    expect(lock.warning).toMatch(/stale after 120 s/);
    await lock.release();
  });
});

describe('isSamePidSpace', () => {
  it('compares pids only where host, boot and PID namespace are each proven equal', () => {
    expect(isSamePidSpace(containerA, containerA)).toBe(true);
    expect(isSamePidSpace(containerA, containerB)).toBe(false);
    expect(isSamePidSpace({ ...containerA, hostname: 'node-2' }, containerA)).toBe(false);
    expect(isSamePidSpace({ ...containerA, bootId: 'boot-2' }, containerA)).toBe(false);
    // Without /proc nothing is proven, not even between two equal identities.
    expect(isSamePidSpace({ hostname: 'mac' }, { hostname: 'mac' })).toBe(false);
    expect(isSamePidSpace({ hostname: 'node-1' }, containerA)).toBe(false);
  });

  it("reads this process's identity (boot id and namespace where /proc has them)", () => {
    const identity = readHostIdentity();
    expect(identity.hostname).toBe(hostname());
    if (existsSync('/proc/self/ns/pid')) expect(identity.pidNamespace).toMatch(/^pid:\[\d+\]$/);
  });
});
