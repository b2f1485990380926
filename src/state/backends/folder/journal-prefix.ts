import { open } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { PREFIX_CHECK_BYTES, type JournalPosition, type PrefixCheck } from '../../snapshot-format.js';

/**
 * The check values of the journal's first `position.bytes` bytes (see {@link PrefixCheck}), or
 * undefined when the file is shorter or that prefix does not end with a newline: then it is not the
 * prefix a snapshot was taken of. Reads at most 2 × PREFIX_CHECK_BYTES.
 */
export async function readPrefixCheck(
  journalPath: string,
  position: JournalPosition,
): Promise<PrefixCheck | undefined> {
  let handle;
  try {
    handle = await open(journalPath, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const { size } = await handle.stat();
    if (size < position.bytes) return undefined;
    const length = Math.min(position.bytes, PREFIX_CHECK_BYTES);
    const head = Buffer.alloc(length);
    const tail = Buffer.alloc(length);
    await handle.read(head, 0, length, 0);
    await handle.read(tail, 0, length, position.bytes - length);
    if (length > 0 && tail[length - 1] !== 0x0a) return undefined;
    return { ...position, headCrc32: crc32(head), tailCrc32: crc32(tail) };
  } finally {
    await handle.close();
  }
}

/** Whether two prefix checks name the same bytes. */
export function isSamePrefix(a: PrefixCheck, b: PrefixCheck): boolean {
  return (
    a.bytes === b.bytes && a.lines === b.lines && a.headCrc32 === b.headCrc32 && a.tailCrc32 === b.tailCrc32
  );
}
