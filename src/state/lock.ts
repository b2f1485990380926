import { readFile, open, stat, unlink } from 'node:fs/promises';
import { unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { RunnerError } from '../errors.js';

/** File name of the lock inside a state directory. */
export const LOCK_FILE = 'lock';

/** Locks this process holds: the same pid in a lock file is otherwise a crashed earlier run (containers reuse pids). */
const heldHere = new Set<string>();

/** An unreadable lock younger than this is being written by another runner, not left by a crash. */
const FRESH_LOCK_MS = 2_000;

export interface LockOwner {
  pid: number;
  hostname: string;
  startedAt: string;
}

export interface StateLock {
  readonly path: string;
  /** Set when a stale lock (its process is gone) was taken over. */
  readonly warning: string | undefined;
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
 */
export async function acquireLock(stateDir: string, options: AcquireLockOptions = {}): Promise<StateLock> {
  const path = join(stateDir, LOCK_FILE);
  const owner: LockOwner = {
    pid: options.pid ?? process.pid,
    hostname: hostname(),
    startedAt: new Date((options.now ?? Date.now)()).toISOString(),
  };
  const isAlive = options.isAlive ?? isProcessAlive;
  let warning: string | undefined;
  if (heldHere.has(path)) {
    throw lockedError(stateDir, {
      pid: process.pid,
      hostname: owner.hostname,
      startedAt: 'earlier in this process',
    });
  }
  for (let tries = 0; tries < 3; tries++) {
    if (await tryCreateLock(path, owner)) return createHandle(path, warning);
    const holder = await readOwner(path);
    if (holder === undefined) continue;
    const sameHost = holder.hostname === owner.hostname;
    if (sameHost && holder.pid > 0 && holder.pid !== owner.pid && isAlive(holder.pid)) {
      throw lockedError(stateDir, holder);
    }
    if (!sameHost) throw lockedError(stateDir, holder);
    warning = `Took over a stale lock in ${stateDir}: runner pid ${holder.pid} (started ${holder.startedAt}) is no longer running.`;
    await unlink(path).catch(() => undefined);
  }
  throw new RunnerError('STATE_LOCKED', `Could not take the lock ${path}: it keeps reappearing.`, {
    hint: 'Another runner is starting on the same state; wait for it to finish.',
  });
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
      return { pid: value.pid, hostname: value.hostname, startedAt: String(value.startedAt ?? 'unknown') };
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

function createHandle(path: string, warning: string | undefined): StateLock {
  let released = false;
  const onExit = () => {
    if (released) return;
    released = true;
    try {
      unlinkSync(path);
    } catch {
      // Already gone.
    }
  };
  process.once('exit', onExit);
  heldHere.add(path);
  return {
    path,
    warning,
    async release() {
      process.removeListener('exit', onExit);
      heldHere.delete(path);
      if (released) return;
      released = true;
      await unlink(path).catch(() => undefined);
    },
  };
}
