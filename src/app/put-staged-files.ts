import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';
import type { ResultsStore } from '../results/results-store.js';
import type { ReportFiles } from '../report/write-report-files.js';
import { describeSystemError } from './system-errors.js';

/**
 * Puts the files written in `staging` into the bucket under the same keys, and names them by their
 * `s3://` location; one that cannot be put is a failure of the run, as a file that cannot be written.
 */
export async function putStagedFiles(
  bucket: ResultsStore,
  staging: string,
  location: string,
  files: ReportFiles,
): Promise<ReportFiles> {
  const failed = new Set(files.failures.map((failure) => failure.file));
  const moved: ReportFiles = { ...files, failures: [] };
  const put = async (file: string): Promise<string> => {
    const key = relative(staging, file).split(sep).join('/');
    if (key.startsWith('..') || isAbsolute(key)) return file;
    const shown = `${location}/${key}`;
    if (failed.has(file)) return shown;
    try {
      await bucket.writeWhole(key, await readFile(file), contentTypeOf(key));
    } catch (error) {
      moved.failures.push({ file: shown, message: errorText(error) });
    }
    return shown;
  };
  moved.resultsJson = await put(files.resultsJson);
  moved.resultsCsv = await put(files.resultsCsv);
  if (files.report !== undefined) moved.report = await put(files.report);
  if (files.junit !== undefined) moved.junit = await put(files.junit);
  if (files.gridImages !== undefined) moved.gridImages = await Promise.all(files.gridImages.map(put));
  for (const failure of files.failures)
    moved.failures.push({
      ...failure,
      file: failure.file.startsWith(staging)
        ? `${location}/${relative(staging, failure.file).split(sep).join('/')}`
        : failure.file,
    });
  return moved;
}

/** Puts a copy of a file of this machine into the bucket at `key`; its location, or undefined (a failure). */
export async function putCopy(
  bucket: ResultsStore,
  location: string,
  file: string,
  key: string,
  files: ReportFiles,
): Promise<string | undefined> {
  const shown = `${location}/${key}`;
  try {
    await bucket.writeWhole(key, await readFile(file), contentTypeOf(key));
    return shown;
  } catch (error) {
    files.failures.push({ file: shown, message: errorText(error) });
    return undefined;
  }
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json',
  '.csv': 'text/csv; charset=utf-8',
  '.xml': 'application/xml',
  '.png': 'image/png',
};
const contentTypeOf = (key: string): string =>
  CONTENT_TYPES[/\.[a-z]+$/.exec(key)?.[0] ?? ''] ?? 'application/octet-stream';

function errorText(error: unknown): string {
  const described = describeSystemError(error);
  return described instanceof Error ? described.message : String(described);
}
