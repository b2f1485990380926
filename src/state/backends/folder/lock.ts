import { randomBytes } from 'node:crypto';
import { readFile, open, stat, unlink, type FileHandle } from 'node:fs/promises';
import { readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { RunnerError } from '../../../errors.js';
import type { AcquireLockOptions, HostIdentity } from '../../lock-options.js';
import { isSamePidSpace, readHostIdentity } from './lock-identity.js';
import { isProcessAlive } from '../../../process-alive.js';
import { placeFileWhole, removeDeadWritersTemporaries } from '../../place-file-whole.js';
import { readableUtcTime } from '../../../readable-time.js';

/** File name of the lock inside a state directory. */
export const LOCK_FILE = 'lock';

/** How often a holder refreshes its lock (rewrites it in place, which moves its modification time). */
export const DEFAULT_LOCK_HEARTBEAT_MS = 5_000;

/**
 * A lock not refreshed for this long is stale: its holder is taken to be gone, unless its pid proves
 * it alive (same host and PID namespace). Its holder stops creating after half of it without a
 * refresh, so two runners whose clocks (or a network disk's) disagree by less than that never overlap.
 */
export const DEFAULT_LOCK_STALE_MS = 30_000;

/** Locks this process holds: the same pid in a lock file is otherwise a crashed earlier run (containers reuse pids). */
const heldHere = new Set<string>();

/** An unreadable lock younger than this is being written by another runner, not left by a crash. */
const FRESH_LOCK_MS = 2_000;

/**
 * A takeover holds `lock.takeover` for milliseconds; one older than this was left by a runner that
 * died mid-takeover and may be removed. (Removing it by its dead pid instead would reopen the race one
 * level down: two runners could each remove it, the second removing the first's fresh guard.)
 */
const ABANDONED_TAKEOVER_MS = 3_000;

/** How long a runner keeps trying while other runners take over or an abandoned guard ages out. */
const ACQUIRE_PATIENCE_MS = ABANDONED_TAKEOVER_MS + 2_000;

/** Contenders that lost a takeover round wait this long (plus jitter) before looking again. */
const TAKEOVER_BACKOFF_MS = 15;

export interface LockOwner extends HostIdentity {
  pid: number;
  startedAt: string;
  /** Random per acquisition: tells two runners with the same pid apart (containers reuse pids). */
  token?: string;
  /** The holder's lease: stale when the lock was not refreshed for this long. */
  staleAfterMs?: number;
}

export interface StateLock {
  readonly path: string;
  /** Set when a stale lock (its process is gone, or its lease ran out) was taken over. */
  readonly warning: string | undefined;
  /**
   * Re-reads the lock file and throws STATE_LOCKED unless it is still this runner's and its lease
   * has not lapsed: called before every create, so a runner whose lock was taken from it never pays
   * for a job.
   */
  verify(): Promise<void>;
  /**
   * Throws STATE_LOCKED when this runner already knows it lost the lock, or its lease lapsed (it was
   * paused, or could not refresh the lock, for half the stale time). No I/O: cheap before every journal
   * write. Optional: a lock without a lease of its own need not have it.
   */
  assertHeld?(): void;
  /** Removes the lock file. Also done on process exit if never called. */
  release(): Promise<void>;
}

/** The state folder's lock: a lease, so it always knows whether it lapsed. */
export interface FolderLock extends StateLock {
  assertHeld(): void;
  /**
   * Set when this lock was taken over from a runner that may still be alive (its lease ran out: it
   * may be paused, or on another machine): who it was, and when (this machine's clock, from the
   * lock's last refresh) it stopped creating. A create it sent may be answered for a while after
   * (#31.9). Unset for a holder proven gone: a dead process stores nothing.
   */
  readonly takenOver?: { holder: string; leaseEndedAt: number };
}

/** What a contender saw of a lock: its owner and when it was last refreshed. */
interface SeenLock {
  owner: LockOwner;
  mtimeMs: number;
}

/**
 * Takes the state directory's lock (placed whole and exclusively, mode 0600) as a lease: the holder refreshes it
 * every `heartbeatMs`. A lock is taken over with a warning when its holder is provably gone (same host,
 * boot and PID namespace, and its pid is not running) or its lease is stale (not refreshed for
 * `staleAfterMs`); a live one is a STATE_LOCKED error naming the holder's pid, host and the lock's age.
 * A pid is never compared across containers or hosts: each may run as pid 1 (#24.1).
 *
 * A takeover is a compare-and-swap, made atomic by a second exclusive file (`lock.takeover`): only
 * its holder may delete the stale lock, and only after re-reading it unchanged and still stale.
 * Without it, two runners that both saw the same stale lock could each delete it, the second deleting
 * the first's fresh lock, and both would go on to create the same paid jobs (#11.1).
 */
export async function acquireLock(stateDir: string, options: AcquireLockOptions = {}): Promise<FolderLock> {
  const path = join(stateDir, LOCK_FILE);
  const now = options.now ?? Date.now;
  const identity = options.identity ?? readHostIdentity();
  const staleAfterMs = options.staleAfterMs ?? DEFAULT_LOCK_STALE_MS;
  const owner: LockOwner = {
    pid: options.pid ?? process.pid,
    ...identity,
    startedAt: new Date(now()).toISOString(),
    token: randomBytes(8).toString('hex'),
    staleAfterMs,
  };
  const isAlive = options.isAlive ?? isProcessAlive;
  // A faked identity is another "container" in the same process (tests): not this process's lock.
  const track = options.identity === undefined;
  if (track && heldHere.has(path)) {
    throw lockedError(
      stateDir,
      {
        owner: { pid: process.pid, hostname: owner.hostname, startedAt: 'earlier in this process' },
        mtimeMs: now(),
      },
      now(),
      staleAfterMs,
    );
  }
  const judge = (seen: SeenLock) => judgeLock(seen, { owner, identity, isAlive, now });
  await removeDeadWritersTemporaries(path);
  await removeDeadWritersTemporaries(takeoverGuardOf(path));
  const giveUpAt = Date.now() + ACQUIRE_PATIENCE_MS;
  while (Date.now() < giveUpAt) {
    const created = await tryCreateLock(path, owner);
    if (created !== undefined)
      return createHandle(path, owner, created, undefined, { ...options, now, track });
    const seen = await readLock(path);
    if (seen === undefined) continue;
    const verdict = judge(seen);
    if (verdict === undefined)
      throw lockedError(stateDir, seen, now(), staleAfterOf(seen.owner, staleAfterMs));
    const taken = await takeOverStaleLock(path, seen, owner, judge);
    if (taken !== undefined) {
      const { pid, hostname, startedAt } = seen.owner;
      const warning = `Took over a stale lock in ${stateDir}: runner pid ${pid} on ${hostname} (started ${readableUtcTime(startedAt)}) ${verdict}.`;
      const handle = createHandle(path, owner, taken, warning, { ...options, now, track });
      const leaseEndedAt = leaseEndOf(seen, { owner, identity, isAlive, now });
      return leaseEndedAt === undefined
        ? handle
        : Object.assign(handle, {
            takenOver: { holder: `pid ${pid} on ${hostname}`, leaseEndedAt },
          });
    }
    await delay(TAKEOVER_BACKOFF_MS + Math.floor(Math.random() * TAKEOVER_BACKOFF_MS));
  }
  throw new RunnerError(
    'STATE_LOCKED',
    `Could not take the lock ${path} within ${ACQUIRE_PATIENCE_MS / 1000} s: it keeps reappearing, or another runner is taking it over.`,
    {
      hint: `Another runner is starting on the same state; wait for it to finish. If none is, delete ${path} and ${path}.takeover.`,
    },
  );
}

/**
 * Why the lock `seen` may be taken over (its holder is gone), or undefined while it is held. Its pid
 * is believed only where it means the same process (same host, boot and PID namespace); elsewhere, and
 * for a pid that is running but stopped refreshing the lock (frozen, or a pid reused), the lease decides.
 */
function judgeLock(
  seen: SeenLock,
  self: { owner: LockOwner; identity: HostIdentity; isAlive: (pid: number) => boolean; now: () => number },
): string | undefined {
  const holder = seen.owner;
  if (holder.pid <= 0) return 'left an unreadable lock';
  if (isSamePidSpace(holder, self.identity)) {
    if (holder.pid === self.owner.pid) return 'is no longer running (this runner has its pid now)';
    if (!self.isAlive(holder.pid)) return 'is no longer running';
  }
  const staleAfterMs = staleAfterOf(holder, self.owner.staleAfterMs ?? DEFAULT_LOCK_STALE_MS);
  const age = self.now() - seen.mtimeMs;
  return age > staleAfterMs
    ? `has not refreshed it for ${formatSeconds(age)} (stale after ${formatSeconds(staleAfterMs)})`
    : undefined;
}

/**
 * When the holder of a lock taken over stopped creating: half its stale time after the lock's last
 * refresh (`createHandle`'s lapse, checked before every create). Undefined when it is proven gone
 * (same host and PID namespace, its pid not running, or an unreadable lock: it never wrote its own).
 */
function leaseEndOf(
  seen: SeenLock,
  self: { owner: LockOwner; identity: HostIdentity; isAlive: (pid: number) => boolean; now: () => number },
): number | undefined {
  const holder = seen.owner;
  if (holder.pid <= 0) return undefined;
  if (isSamePidSpace(holder, self.identity) && (holder.pid === self.owner.pid || !self.isAlive(holder.pid)))
    return undefined;
  return seen.mtimeMs + staleAfterOf(holder, self.owner.staleAfterMs ?? DEFAULT_LOCK_STALE_MS) / 2;
}

/** The holder's own lease when it recorded one, else ours (a lock of an earlier release). */
function staleAfterOf(holder: LockOwner, fallback: number): number {
  const declared = holder.staleAfterMs;
  return typeof declared === 'number' && Number.isFinite(declared) && declared > 0 ? declared : fallback;
}

function formatSeconds(ms: number): string {
  return `${Math.max(0, Math.round(ms / 100) / 10)} s`;
}

/**
 * Replaces the stale lock `seen` with this runner's, unless another runner got there first or its
 * holder refreshed it meanwhile. Undefined: lost the round (the lock changed since it was read).
 */
async function takeOverStaleLock(
  path: string,
  seen: SeenLock,
  owner: LockOwner,
  judge: (seen: SeenLock) => string | undefined,
): Promise<FileHandle | undefined> {
  const guard = takeoverGuardOf(path);
  const guarding = await tryCreateLock(guard, owner);
  if (guarding === undefined) {
    await removeAbandonedGuard(guard);
    return undefined;
  }
  await guarding.close();
  try {
    const current = await readLock(path);
    if (current !== undefined) {
      if (!isSameOwner(current.owner, seen.owner) || judge(current) === undefined) return undefined;
      await unlink(path).catch(ignoreMissing);
    }
    return await tryCreateLock(path, owner);
  } finally {
    await unlink(guard).catch(ignoreMissing);
  }
}

function takeoverGuardOf(path: string): string {
  return `${path}.takeover`;
}

/** A takeover guard left by a runner that died mid-takeover blocks every later takeover: clear it. */
async function removeAbandonedGuard(guard: string): Promise<void> {
  const age = await stat(guard).then(
    (info) => Date.now() - info.mtimeMs,
    () => 0,
  );
  if (age > ABANDONED_TAKEOVER_MS) await unlink(guard).catch(ignoreMissing);
}

function isOwnedBy(text: string, owner: LockOwner): boolean {
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    return value.pid === owner.pid && value.token === owner.token;
  } catch {
    return false;
  }
}

function isSameOwner(a: LockOwner, b: LockOwner): boolean {
  return a.pid === b.pid && a.hostname === b.hostname && a.startedAt === b.startedAt && a.token === b.token;
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function lockedError(stateDir: string, seen: SeenLock, now: number, staleAfterMs: number): RunnerError {
  const holder = seen.owner;
  return new RunnerError(
    'STATE_LOCKED',
    `Another runner (pid ${holder.pid} on ${holder.hostname}, started ${readableUtcTime(holder.startedAt)}, lock refreshed ${formatSeconds(now - seen.mtimeMs)} ago) is applying this pipeline's state in ${stateDir}.`,
    {
      hint: `Wait for it to finish or stop it. A runner that stopped without removing its lock (a crash, a killed container) is taken over once its lock has not been refreshed for ${formatSeconds(staleAfterMs)}. If you are sure none is running, delete ${join(stateDir, LOCK_FILE)}.`,
    },
  );
}

/**
 * Places the lock file (or the takeover guard) exclusively, written whole: no runner ever reads a lock
 * that is empty or cut short, which it would have to wait out as being written now. Undefined when one
 * is there. The handle is open on it, for the heartbeat's rewrites.
 */
async function tryCreateLock(path: string, owner: LockOwner): Promise<FileHandle | undefined> {
  return placeFileWhole(path, `${JSON.stringify(owner)}\n`);
}

/**
 * The lock and when it was last refreshed; `undefined` when it vanished meanwhile. Read through an
 * open descriptor: opening revalidates a network disk's cached attributes (close-to-open), so the
 * modification time is the server's latest. An unreadable lock counts as stale (pid 0) unless young.
 */
async function readLock(path: string): Promise<SeenLock | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let text: string;
  let mtimeMs: number;
  try {
    mtimeMs = (await handle.stat()).mtimeMs;
    text = await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
  const owner = parseOwner(text);
  if (owner !== undefined) return { owner, mtimeMs };
  // Locks are placed whole; an empty one is left by a crash between create and write on a file system
  // without hard links (or by an earlier release): stale, unless it is being written now.
  if (Date.now() - mtimeMs < FRESH_LOCK_MS) {
    throw new RunnerError('STATE_LOCKED', `Another runner is taking the lock ${path} right now.`, {
      hint: 'Wait for it to finish; two runners cannot apply the same state at once.',
    });
  }
  return { owner: { pid: 0, hostname: 'unknown', startedAt: 'unknown' }, mtimeMs };
}

function parseOwner(text: string): LockOwner | undefined {
  let value: Partial<LockOwner>;
  try {
    value = JSON.parse(text) as Partial<LockOwner>;
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (typeof value.pid !== 'number' || typeof value.hostname !== 'string') return undefined;
  const text_ = (field: unknown) => (typeof field === 'string' ? field : undefined);
  const owner: LockOwner = {
    pid: value.pid,
    hostname: value.hostname,
    startedAt: String(value.startedAt ?? 'unknown'),
  };
  const bootId = text_(value.bootId);
  const pidNamespace = text_(value.pidNamespace);
  const token = text_(value.token);
  if (bootId !== undefined) owner.bootId = bootId;
  if (pidNamespace !== undefined) owner.pidNamespace = pidNamespace;
  if (token !== undefined) owner.token = token;
  if (typeof value.staleAfterMs === 'number') owner.staleAfterMs = value.staleAfterMs;
  return owner;
}

function createHandle(
  path: string,
  owner: LockOwner,
  handle: FileHandle,
  warning: string | undefined,
  options: AcquireLockOptions & { now: () => number; track: boolean },
): FolderLock {
  const { now } = options;
  const staleAfterMs = owner.staleAfterMs ?? DEFAULT_LOCK_STALE_MS;
  // Half the stale time: a contender whose clock runs up to that much ahead still waits longer.
  const lapseMs = staleAfterMs / 2;
  const bytes = Buffer.from(`${JSON.stringify(owner)}\n`, 'utf8');
  let released = false;
  let lost: string | undefined;
  // Both clocks: the wall clock goes on through a suspended machine, the monotonic one through a clock change.
  let beatWall = now();
  let beatMono = performance.now();
  const sinceBeat = () => Math.max(now() - beatWall, performance.now() - beatMono);
  let beating = false;
  const beat = async () => {
    if (beating || released || lost !== undefined) return;
    beating = true;
    const wall = now();
    const mono = performance.now();
    try {
      if (sinceBeat() > lapseMs) {
        lost = lapsedReason(sinceBeat());
        return;
      }
      // Rewriting the same bytes in place moves the modification time, never the content. Through
      // the descriptor: if the lock was taken over (unlinked and made anew), this writes to the old one.
      await handle.write(bytes, 0, bytes.length, 0);
      await handle.datasync();
      beatWall = wall;
      beatMono = mono;
      // A takeover (a contender whose clock ran ahead, a lock deleted by hand) is noticed within a
      // beat, so journal writes stop too, not only the next create.
      const seen = await readLock(path).catch(() => undefined);
      if (seen === undefined || !isSameOwner(seen.owner, owner)) lost = takenReason(seen);
    } catch {
      // A missed refresh: if they keep failing, the lease lapses and this runner stops creating.
    } finally {
      beating = false;
    }
  };
  const timer = setInterval(() => void beat(), options.heartbeatMs ?? DEFAULT_LOCK_HEARTBEAT_MS);
  timer.unref();
  const stop = () => {
    clearInterval(timer);
    void handle.close().catch(() => undefined);
  };
  const onExit = () => {
    if (released) return;
    released = true;
    try {
      if (isOwnedBy(readFileSync(path, 'utf8'), owner)) unlinkSync(path);
    } catch {
      // Already gone.
    }
  };
  process.once('exit', onExit);
  if (options.track) heldHere.add(path);
  const lostError = (why: string) =>
    new RunnerError(
      'STATE_LOCKED',
      `This runner no longer holds the lock ${path}: ${why}. Nothing more was created.`,
      {
        hint: 'Another runner may be applying the same state; let it finish, then run again to resume.',
      },
    );
  const takenReason = (seen: SeenLock | undefined) =>
    seen === undefined
      ? 'the lock file is gone'
      : `pid ${seen.owner.pid} on ${seen.owner.hostname} (started ${readableUtcTime(seen.owner.startedAt)}) took it`;
  const lapsedReason = (ms: number) =>
    `it was paused or could not refresh the lock for ${formatSeconds(ms)}, so another runner may have taken it over (stale after ${formatSeconds(staleAfterMs)})`;
  const assertHeld = () => {
    if (released) throw lostError('it was released');
    if (lost === undefined && sinceBeat() > lapseMs) lost = lapsedReason(sinceBeat());
    if (lost !== undefined) throw lostError(lost);
  };
  const lock: FolderLock = {
    path,
    warning,
    assertHeld,
    async verify() {
      assertHeld();
      const seen = await readLock(path).catch(() => undefined);
      if (seen === undefined || !isSameOwner(seen.owner, owner)) {
        lost = takenReason(seen);
        throw lostError(lost);
      }
      assertHeld();
    },
    async release() {
      process.removeListener('exit', onExit);
      if (options.track) heldHere.delete(path);
      stop();
      if (released) return;
      released = true;
      // Never delete a lock that is no longer ours: that would let a third runner in beside its holder.
      const text = await readFile(path, 'utf8').catch(() => '');
      if (isOwnedBy(text, owner)) await unlink(path).catch(() => undefined);
    },
  };
  return lock;
}
