import { constants } from 'node:fs';
import { access, lstat, mkdir, stat, statfs } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { RunnerError } from '../errors.js';
import { PRIVATE_DIR_MODE } from '../file-modes.js';
import { LINK_REFUSED } from '../no-follow.js';

/** A path the command will write to, and what names it for the user (`--log-file`, `output folder`). */
export interface WriteTarget {
  path: string;
  /** `dir`: a folder that is made when missing; `file`: a file whose folder is made when missing. */
  kind: 'dir' | 'file';
  what: string;
  /** Refused when it is a symbolic link: the command opens it with O_NOFOLLOW (src/no-follow.ts). */
  noLinks?: boolean;
  /**
   * A file written whole to a temporary sibling and renamed over the path (the report, JUnit): an
   * existing one must be a regular file, not a device or a pipe that the rename would replace.
   */
  replaced?: boolean;
}

/**
 * Preflight (issue #7.6): nothing is paid before the run can finish. Every path the command will
 * write is checked first, all of them before any is created: a file where a folder is expected (or
 * the reverse), a missing parent that cannot be made because a part of it is a file, or a folder
 * without write permission is reported, every problem at once, as one error (exit 2). Only when all
 * pass are the missing folders made. Run before the first create (and before any request when the
 * paths come from flags alone).
 *
 * Root is not refused by permission bits, so as root a folder without write permission passes here;
 * the first write then fails with the same clear path error, still before that step's create.
 */
export async function preflightTargets(
  targets: readonly WriteTarget[],
  cwd: string,
  /** Mode of the folders made. @default PRIVATE_DIR_MODE (0700); `runner init` makes ordinary ones. */
  dirMode = PRIVATE_DIR_MODE,
): Promise<void> {
  const problems: string[] = [];
  const toMake: { path: string }[] = [];
  for (const target of targets) {
    const path = resolve(cwd, target.path);
    const problem = await checkTarget({ ...target, path });
    if (problem !== undefined) problems.push(`${target.what} ${path}: ${problem}`);
    else toMake.push({ path: target.kind === 'dir' ? path : dirname(path) });
  }
  if (problems.length > 0) {
    const count = problems.length === 1 ? 'a path it must write' : `${problems.length} paths it must write`;
    throw new RunnerError(
      'INVALID_INPUT',
      `Cannot start: ${count} cannot be used.\n${problems.map((line) => `  - ${line}`).join('\n')}\nNothing was created or paid.`,
      { hint: 'Fix or change these paths and run again.' },
    );
  }
  for (const folder of toMake) await mkdir(folder.path, { recursive: true, mode: dirMode });
}

async function checkTarget(target: WriteTarget): Promise<string | undefined> {
  if (target.noLinks === true && (await isSymbolicLink(target.path))) return LINK_REFUSED;
  try {
    const found = await statOrMissing(target.path);
    if (found !== undefined) {
      if (target.kind === 'dir' && !found.isDirectory()) return 'is a file, a folder is expected';
      if (target.kind === 'file' && found.isDirectory()) return 'is a folder, a file is expected';
      if (target.replaced === true && !found.isFile())
        return 'is not a regular file (a device or a pipe?): it would be replaced, not written to';
      // A file there (a log, /dev/null) is written in place; a folder must hold ordinary files.
      const special = target.kind === 'dir' ? await specialFileSystemOf(target.path) : undefined;
      if (special !== undefined) return `is on the ${special} file system, which holds no ordinary files`;
      return (await isWritable(target.path)) ? undefined : 'no permission to write it';
    }
    // Missing: the nearest existing ancestor must be a folder we may write in.
    let ancestor = dirname(target.path);
    for (;;) {
      const existing = await statOrMissing(ancestor);
      if (existing !== undefined) {
        if (!existing.isDirectory()) return `cannot be made: ${ancestor} is a file, not a folder`;
        // Under /proc or /sys a recursive mkdir never ends (issue 20 item 10): refused here.
        const special = await specialFileSystemOf(ancestor);
        if (special !== undefined)
          return `cannot be made: ${ancestor} is on the ${special} file system, which holds no ordinary files`;
        return (await isWritable(ancestor))
          ? undefined
          : `cannot be made: no permission to write in ${ancestor}`;
      }
      const parent = dirname(ancestor);
      if (parent === ancestor) return `cannot be made: ${ancestor} does not exist`;
      ancestor = parent;
    }
  } catch (error) {
    // ENAMETOOLONG, ELOOP, EACCES on a part of the path: a problem of this path, not a crash.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === undefined) throw error;
    return `cannot be checked (${code}: ${(error as Error).message})`;
  }
}

/**
 * Kernel file systems that show processes, devices and settings as files (Linux `statfs` magic
 * numbers): nothing can be created there, and Node's recursive mkdir loops forever under /proc.
 */
const SPECIAL_FILE_SYSTEMS = new Map<number, string>([
  [0x9fa0, 'proc'],
  [0x62656572, 'sysfs'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0x6165676c, 'pstore'],
  [0xcafe4a11, 'bpf'],
  [0x62656570, 'configfs'],
  [0xde5e81e4, 'efivarfs'],
  [0x1cd1, 'devpts'],
]);

/** The name of the special file system `path` (an existing folder) is on, or undefined. */
async function specialFileSystemOf(path: string): Promise<string | undefined> {
  try {
    return SPECIAL_FILE_SYSTEMS.get(Number((await statfs(path)).type));
  } catch {
    // statfs is not on every platform (nor for every path): the checks above still hold.
    return undefined;
  }
}

/** The path's stats, or undefined when it (or a part of it) does not exist as a folder entry. */
async function statOrMissing(path: string) {
  try {
    return await stat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

async function isSymbolicLink(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isSymbolicLink();
  } catch {
    return false;
  }
}

async function isWritable(path: string): Promise<boolean> {
  try {
    await access(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
