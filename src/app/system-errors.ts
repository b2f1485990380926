import { RunnerError, UsageError } from '../errors.js';

/** Node's system errors carry these; `path` for file system calls, `port` for `listen`. */
interface SystemError extends Error {
  code: string;
  syscall?: string;
  path?: string;
  port?: number;
  address?: string;
}

function isSystemError(error: unknown): error is SystemError {
  return error instanceof Error && typeof (error as Partial<SystemError>).code === 'string';
}

const WHAT: Record<string, (path: string, syscall: string) => string> = {
  ENOENT: (path) => `${path} does not exist`,
  ENOTDIR: (path) => `${path} cannot be used: a part of this path is a file, not a folder`,
  EISDIR: (path) => `${path} is a folder; a file was expected`,
  EACCES: (path, syscall) => `no permission to ${syscall} ${path}`,
  EPERM: (path, syscall) => `the operating system does not permit to ${syscall} ${path}`,
  EEXIST: (path) => `${path} already exists`,
  EROFS: (path) => `${path} is on a read-only file system`,
  ENAMETOOLONG: (path) => `${path} is too long a path`,
  ELOOP: (path) => `${path} has a loop of symbolic links`,
};

/**
 * A user's situation that Node reports as a system error (a missing or unwritable path, a port in
 * use) becomes a RunnerError that says so, instead of an "internal error … this is a bug". Anything
 * else is returned as it was.
 */
export function describeSystemError(error: unknown): unknown {
  if (!isSystemError(error)) return error;
  if (error.syscall === 'listen' && error.port !== undefined) {
    const where = `${error.address ?? '127.0.0.1'}:${error.port}`;
    if (error.code === 'EADDRINUSE') {
      return new UsageError(`Port ${error.port} is already in use (${where}).`, {
        hint: 'Stop what uses it, pick another with --port, or pass --port 0 for any free port.',
        cause: error,
      });
    }
    if (error.code === 'EACCES') {
      return new UsageError(`No permission to listen on port ${error.port} (${where}).`, {
        hint: 'Ports below 1024 need privileges: pick a port of 1024 or more, or --port 0.',
        cause: error,
      });
    }
  }
  const describe = WHAT[error.code];
  if (describe === undefined) return error;
  if (error.path === undefined) {
    // Some calls (reading a folder as a file) do not say which path: say what happened all the same.
    return new RunnerError('INVALID_INPUT', `A file could not be used: ${error.message}.`, {
      hint: 'Check the paths given on the command line and in the manifest (a folder where a file is expected?).',
      cause: error,
    });
  }
  return new RunnerError(
    'INVALID_INPUT',
    `Cannot use ${error.path}: ${describe(error.path, error.syscall ?? 'open')} (${error.code}).`,
    {
      hint: 'Check the path (relative paths are resolved against the current folder) and its permissions.',
      cause: error,
    },
  );
}
