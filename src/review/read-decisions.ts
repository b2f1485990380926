import { open } from 'node:fs/promises';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { validate } from '../generated/review-decisions-validator.js';
import type { Locator } from '../manifest/locate.js';
import { parseManifestYaml } from '../manifest/parse-yaml.js';
import type { ValidationIssue } from '../manifest/types.js';
import { formatYamlPath, parseInstancePath } from '../manifest/yaml-path.js';
import { DECISIONS_KIND, DECISIONS_VERSION, type DecisionsFile } from './decisions.js';

/** Compiled from `schemas/review-decisions.schema.json` at build time (`npm run schemas`). */
const validateDecisions = validate as ValidateFunction<DecisionsFile>;

/** A decisions file as read: its content when it is one, and where each of its values is. */
export type ReadDecisions =
  | { ok: true; file: string; decisions: DecisionsFile; locator: Locator }
  | { ok: false; issues: ValidationIssue[] };

/**
 * Reads the text of a decisions file (`--replace-from`): JSON checked against
 * `schemas/review-decisions.schema.json`, every problem at once with its `file:line:col`. A file that
 * is not a decisions file at all (another JSON document, a manifest) or is of another version says so
 * in one issue, not in a list of schema errors. Pure.
 */
export function readDecisionsText(text: string, file: string): ReadDecisions {
  const parsed = parseManifestYaml(text, file);
  const errors = parsed.issues.filter((issue) => issue.severity === 'error');
  if (errors.length > 0 || parsed.value === undefined) {
    return {
      ok: false,
      issues: errors.map((issue) => ({ ...issue, message: `not JSON: ${issue.message}` })),
    };
  }
  const { value, locator } = parsed;
  const record = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined;
  const kind = (record as { kind?: unknown } | undefined)?.kind;
  if (kind !== DECISIONS_KIND) {
    return {
      ok: false,
      issues: [
        {
          severity: 'error',
          code: 'not-a-decisions-file',
          message: `${file} is not a review decisions file: expected "kind": "${DECISIONS_KIND}", found ${kind === undefined ? 'no kind' : JSON.stringify(kind)}`,
          location: locator.locate(record === undefined ? [] : ['kind']),
          hint: 'export it from the run’s report.html (the "Export decisions" button)',
        },
      ],
    };
  }
  const version = (record as { schemaVersion?: unknown }).schemaVersion;
  if (version !== DECISIONS_VERSION) {
    const newer = typeof version === 'number' && version > DECISIONS_VERSION;
    return {
      ok: false,
      issues: [
        {
          severity: 'error',
          code: 'decisions-version',
          message: `${file} has schemaVersion ${JSON.stringify(version)}; this runner reads version ${DECISIONS_VERSION}`,
          location: locator.locate(['schemaVersion']),
          hint: newer
            ? 'it was exported by a newer runner’s report: use that runner, or export it again from this runner’s report'
            : 'export it again from the run’s report.html',
        },
      ],
    };
  }
  if (validateDecisions(value)) return { ok: true, file, decisions: value, locator };
  const issues = (validateDecisions.errors ?? []).map((error: ErrorObject) => schemaIssue(error, locator));
  return { ok: false, issues };
}

function schemaIssue(error: ErrorObject, locator: Locator): ValidationIssue {
  const path = parseInstancePath(error.instancePath);
  const where = path.length === 0 ? 'the decisions file' : formatYamlPath(path);
  const params = error.params as Record<string, unknown>;
  const data = JSON.stringify(error.data);
  const received =
    data === undefined ? '' : `; received ${data.length > 80 ? `${data.slice(0, 79)}…` : data}`;
  let message: string;
  switch (error.keyword) {
    case 'required':
      message = `${where} is missing the required key "${String(params['missingProperty'])}"`;
      break;
    case 'enum':
      message = `${where} must be one of ${(params['allowedValues'] as unknown[]).map(String).join(', ')}${received}`;
      break;
    default:
      message = `${where} ${error.message ?? 'is invalid'}${received}`;
  }
  return { severity: 'error', code: 'invalid-decisions', message, location: locator.locate(path) };
}

/**
 * The largest decisions file read (16 MiB): tens of thousands of decisions with notes. Parsing keeps
 * its positions, about 36 bytes of memory per byte: a 100 MB file took 15–30 s and 3.6 GB before it
 * was refused (issue #32.7), so a larger one is refused before a byte is parsed.
 */
export const MAX_DECISIONS_BYTES = 16 * 1024 * 1024;

/**
 * Reads a decisions file (`--replace-from FILE`). A file that cannot be read, or larger than
 * `maxBytes`, is an issue too, so it is reported with every other problem of the command's input: the
 * size is checked by `stat` before reading, and the read stops past `maxBytes` (a file that grows, a
 * device or a pipe, whose `stat` says nothing of its length).
 */
export async function readDecisionsFile(
  file: string,
  maxBytes = MAX_DECISIONS_BYTES,
): Promise<ReadDecisions> {
  let text: string;
  try {
    const read = await readCapped(file, maxBytes);
    if (read.tooLarge !== undefined) {
      return {
        ok: false,
        issues: [
          {
            severity: 'error',
            code: 'decisions-too-large',
            message: `--replace-from ${file} is ${read.tooLarge}; a decisions file may be at most ${describeBytes(maxBytes)}`,
            location: { file, line: 1, col: 1 },
            hint: 'export the decisions again from the run’s report.html (the "Export decisions" button)',
          },
        ],
      };
    }
    text = read.text;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      ok: false,
      issues: [
        {
          severity: 'error',
          code: 'unreadable-decisions',
          message: `--replace-from ${file} cannot be read (${code === 'ENOENT' ? 'no such file' : (code ?? String(error))})`,
          location: { file, line: 1, col: 1 },
        },
      ],
    };
  }
  return readDecisionsText(text, file);
}

/** The file's text, or how large it is (`tooLarge`) when it has more than `maxBytes` bytes. */
async function readCapped(file: string, maxBytes: number): Promise<{ text: string; tooLarge?: string }> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) return { text: '', tooLarge: describeBytes(size) };
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.alloc(Math.min(1024 * 1024, maxBytes + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > maxBytes) return { text: '', tooLarge: `more than ${describeBytes(maxBytes)}` };
    }
    return { text: Buffer.concat(chunks).toString('utf8') };
  } finally {
    await handle.close();
  }
}

/** `16 MiB`, `100.5 MiB`, `812 bytes`. */
function describeBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${bytes.toLocaleString('en-US')} bytes`;
  return `${(bytes / (1024 * 1024)).toLocaleString('en-US', { maximumFractionDigits: 1 })} MiB`;
}
