import { createHash } from 'node:crypto';
import type { ReportEntry } from '../src/report/report-data.js';

/** A done image job of the report with `files` (one attempt, one credit). */
export function imageEntry(id: string, files: ReportEntry['files']): ReportEntry {
  return {
    id,
    kind: 'image',
    model: 'm',
    params: {},
    matrix: {},
    status: 'done',
    attempts: 1,
    credits: 1,
    files,
  };
}

/** Bytes that begin as a PNG and hold no image (sharp cannot read them), and their hash. */
export function brokenPng(): { bytes: Buffer; sha256: string } {
  const bytes = Buffer.from('\x89PNG\r\n\x1a\n not the rest of a png');
  return { bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
}
