import { isAbsolute, posix, relative, sep, win32 } from 'node:path';
import { RunnerError } from '../errors.js';

/**
 * Refuses a key that could leave the run's output root or means different things on different stores:
 * empty, absolute (`/x`, `C:x`), with an empty, `.` or `..` segment, a backslash or a NUL. Keys are
 * what the runner itself makes (result names, `.superseded/attempt-N/…`, `thumbnails/…`), so a refused
 * key is a bug, reported as INTERNAL.
 */
export function checkResultKey(key: string): string {
  const problem = describeBadKey(key);
  if (problem !== undefined) {
    throw new RunnerError('INTERNAL', `Refused the result key "${key}": ${problem}.`);
  }
  return key;
}

function describeBadKey(key: string): string | undefined {
  if (key === '') return 'it is empty';
  if (key.includes('\\') || key.includes('\0')) return 'it holds a backslash or a NUL';
  if (key.startsWith('/') || win32.isAbsolute(key) || /^[A-Za-z]:/.test(key)) return 'it is absolute';
  for (const segment of key.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') return 'it has an empty, "." or ".." segment';
  }
  return undefined;
}

/** True when {@link checkResultKey} would take `key`. */
export function isResultKey(key: string): boolean {
  return describeBadKey(key) === undefined;
}

/** Joins key segments with '/' (no checks: {@link checkResultKey} runs where the key is used). */
export function joinKey(...segments: string[]): string {
  return segments.filter((segment) => segment !== '').join('/');
}

/** The folder part of a key (`''` for a key at the root). */
export function keyFolder(key: string): string {
  const at = key.lastIndexOf('/');
  return at === -1 ? '' : key.slice(0, at);
}

/** The last segment of a key. */
export function keyName(key: string): string {
  return key.slice(key.lastIndexOf('/') + 1);
}

/**
 * The key of a file as a journal recorded it. New journals record keys; journals of earlier releases
 * recorded absolute paths on the machine that downloaded: a path under that run's recorded output
 * folder maps to its path relative to it, any other absolute path to its last part (where the result
 * would stand at the root of today's output). Any machine can then look the result up in its own store.
 */
export function keyOfRecordedFile(file: string, recordedOutputDir: string | undefined): string {
  if (!isAbsolute(file) && !win32.isAbsolute(file)) return file.split(sep).join('/');
  if (recordedOutputDir !== undefined) {
    const inside = relative(recordedOutputDir, file);
    if (inside !== '' && inside !== '..' && !inside.startsWith(`..${sep}`) && !isAbsolute(inside)) {
      const key = inside.split(sep).join('/');
      if (isResultKey(key)) return key;
    }
  }
  return posix.basename(file.split(win32.sep).join('/'));
}
