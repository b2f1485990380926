import { randomBytes } from 'node:crypto';
import { readFile, open, stat, unlink } from 'node:fs/promises';
import { readFileSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { RunnerError } from '../errors.js';

/** File name of the lock inside a state directory. */
export const LOCK_FILE = 'lock';

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

export interface LockOwner {
  pid: number;
  hostname: string;
  startedAt: string;
  /** Random per acquisition: tells two runners with the same pid apart (containers reuse pids). */
  token?: string;
}

export interface StateLock {
  readonly path: string;
  /** Set when a stale lock (its process is gone) was taken over. */
  readonly warning: string | undefined;
  /**
   * Re-reads the lock file and throws STATE_LOCKED unless it is still this runner's: called before
   * the first create, so a runner whose lock was taken from it never pays for a job.
   */
  verify(): Promise<void>;
  /** Removes the lock file. Also done on process exit if never called. */
  release(): Promise<void>;
}

export interface AcquireLockOptions {
  /** @default process.pid */
  pid?: number;
  /** Whether a process is alive. @default `process.kill(pid, 0)` */
  isAlive?: (pid: number) => boolean;
  now?: () => number;
}

/**
 * Takes the state directory's lock (`open(path, 'wx', 0o600)`). A lock whose process is gone is taken
 * over with a warning; a live one is a STATE_LOCKED error naming the pid and start time.
 *
 * A takeover is a compare-and-swap, made atomic by a second exclusive file (`lock.takeover`): only
 * its holder may delete the stale lock, and only after re-reading it unchanged. Without it, two
 * runners that both saw the same stale lock could each delete it, the second deleting the first's
 * fresh lock, and both would go on to create the same paid jobs (#11.1).
 */
export async function acquireLock(stateDir: string, options: AcquireLockOptions = {}): Promise<StateLock> {
  const path = join(stateDir, LOCK_FILE);
  const owner: LockOwner = {
    pid: options.pid ?? process.pid,
    hostname: hostname(),
    startedAt: new Date((options.now ?? Date.now)()).toISOString(),
    token: randomBytes(8).toString('hex'),
  };
  const isAlive = options.isAlive ?? isProcessAlive;
  if (heldHere.has(path)) {
    throw lockedError(stateDir, {
      pid: process.pid,
      hostname: owner.hostname,
      startedAt: 'earlier in this process',
    });
  }
  const giveUpAt = Date.now() + ACQUIRE_PATIENCE_MS;
  while (Date.now() < giveUpAt) {
    if (await tryCreateLock(path, owner)) return createHandle(path, owner, undefined);
    const holder = await readOwner(path);
    if (holder === undefined) continue;
    const sameHost = holder.hostname === owner.hostname;
    if (sameHost && holder.pid > 0 && holder.pid !== owner.pid && isAlive(holder.pid)) {
      throw lockedError(stateDir, holder);
    }
    if (!sameHost) throw lockedError(stateDir, holder);
    if (await takeOverStaleLock(path, holder, owner)) {
      const warning = `Took over a stale lock in ${stateDir}: runner pid ${holder.pid} (started ${holder.startedAt}) is no longer running.`;
      return createHandle(path, owner, warning);
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
 * Replaces the stale lock `seen` with this runner's, unless another runner got there first. `false`:
 * lost the round (someone else is taking over, or the lock changed since it was read).
 */
async function takeOverStaleLock(path: string, seen: LockOwner, owner: LockOwner): Promise<boolean> {
  const guard = `${path}.takeover`;
  if (!(await tryCreateLock(guard, owner))) {
    await removeAbandonedGuard(guard);
    return false;
  }
  try {
    const current = await readOwner(path);
    if (current !== undefined) {
      if (!isSameOwner(current, seen)) return false;
      await unlink(path).catch(ignoreMissing);
    }
    return await tryCreateLock(path, owner);
  } finally {
    await unlink(guard).catch(ignoreMissing);
  }
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

function lockedError(stateDir: string, holder: LockOwner): RunnerError {
  return new RunnerError(
    'STATE_LOCKED',
    `Another runner (pid ${holder.pid} on ${holder.hostname}, started ${holder.startedAt}) is applying this pipeline's state in ${stateDir}.`,
    {
      hint: `Wait for it to finish or stop it. If you are sure it is not running, delete ${join(stateDir, LOCK_FILE)}.`,
    },
  );
}

async function tryCreateLock(path: string, owner: LockOwner): Promise<boolean> {
  try {
    const handle = await open(path, 'wx', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(owner)}\n`, 'utf8');
      await handle.datasync();
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** `undefined` when the lock vanished meanwhile; an unreadable lock counts as stale (pid 0). */
async function readOwner(path: string): Promise<LockOwner | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const value = JSON.parse(text) as Partial<LockOwner>;
    if (typeof value.pid === 'number' && typeof value.hostname === 'string') {
      return {
        pid: value.pid,
        hostname: value.hostname,
        startedAt: String(value.startedAt ?? 'unknown'),
        ...(typeof value.token === 'string' ? { token: value.token } : {}),
      };
    }
  } catch {
    // A crash between create and write leaves an empty lock: stale, unless it is being written now.
  }
  const age = Date.now() - (await stat(path).catch(() => ({ mtimeMs: 0 }))).mtimeMs;
  if (age < FRESH_LOCK_MS) {
    throw new RunnerError('STATE_LOCKED', `Another runner is taking the lock ${path} right now.`, {
      hint: 'Wait for it to finish; two runners cannot apply the same state at once.',
    });
  }
  return { pid: 0, hostname: hostname(), startedAt: 'unknown' };
}

/** Whether a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function isProcessAlive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function createHandle(path: string, owner: LockOwner, warning: string | undefined): StateLock {
  let released = false;
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
  heldHere.add(path);
  return {
    path,
    warning,
    async verify() {
      const holder = await readOwner(path).catch(() => undefined);
      if (released || holder === undefined || !isSameOwner(holder, owner)) {
        throw new RunnerError(
          'STATE_LOCKED',
          `This runner no longer holds the lock ${path}${holder === undefined ? '' : `: pid ${holder.pid} on ${holder.hostname} (started ${holder.startedAt}) took it`}. Nothing was created.`,
          { hint: 'Two runners started on the same state; let the other one finish, then run again.' },
        );
      }
    },
    async release() {
      process.removeListener('exit', onExit);
      heldHere.delete(path);
      if (released) return;
      released = true;
      // Never delete a lock that is no longer ours: that would let a third runner in beside its holder.
      const text = await readFile(path, 'utf8').catch(() => '');
      if (isOwnedBy(text, owner)) await unlink(path).catch(() => undefined);
    },
  };
}
