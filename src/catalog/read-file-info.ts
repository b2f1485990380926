import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import {
  DEFAULT_MAX_LOCAL_FILE_BYTES,
  sniffImageType,
  type FileInfoReader,
  type LocalFileInfo,
} from './local-files.js';

/**
 * The one place validation touches the disk: a memoizing {@link FileInfoReader} that stats a path
 * and, for a regular file within `maxBytes`, reads it once to hash it and sniff its type. Each
 * distinct absolute path is read at most once per reader, however many jobs name it.
 */
export function createFileInfoReader(options: { maxBytes?: number } = {}): FileInfoReader {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_LOCAL_FILE_BYTES;
  const cache = new Map<string, LocalFileInfo | undefined>();
  return (absPath) => {
    if (cache.has(absPath)) return cache.get(absPath);
    const info = readInfo(absPath, maxBytes);
    cache.set(absPath, info);
    return info;
  };
}

function readInfo(absPath: string, maxBytes: number): LocalFileInfo | undefined {
  const stats = statSync(absPath, { throwIfNoEntry: false });
  if (stats === undefined) return undefined;
  if (!stats.isFile()) return { isFile: false, bytes: 0 };
  // Too large to upload anyway: don't read gigabytes just to refuse them.
  if (stats.size > maxBytes) return { isFile: true, bytes: stats.size };
  const content = readFileSync(absPath);
  const info: LocalFileInfo = {
    isFile: true,
    bytes: content.byteLength,
    sha256: createHash('sha256').update(content).digest('hex'),
  };
  const contentType = sniffImageType(content.subarray(0, 16));
  if (contentType !== undefined) info.contentType = contentType;
  return info;
}
