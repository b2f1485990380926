import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { decodeUtf8 } from './decode-utf8.js';
import { parseManifestYaml } from './parse-yaml.js';
import { sortIssues } from './sort-issues.js';
import type { LoadedManifest, ValidationIssue, YamlPath } from './types.js';
import { checkManifestSchema } from './validate-schema.js';

/** Manifests larger than this are refused before they are read. */
export const MAX_MANIFEST_BYTES = 10 * 1024 * 1024;

/** Options of {@link loadManifest}. */
export interface LoadManifestOptions {
  /** The manifest text; when given, `file` is not read (it still names the file in locations). */
  source?: string | Uint8Array;
  /**
   * Also return `loaded` when schema errors lie outside `jobs:` (with those parts dropped), so the
   * jobs' own errors are found in the same run. `loaded` then comes with errors in `issues`: it must
   * only be used for reporting, never to run anything. @default false
   */
  checkJobsDespiteErrors?: boolean;
}

/** `loaded` is present only when there is no error among `issues`. */
export interface LoadManifestResult {
  loaded?: LoadedManifest;
  issues: ValidationIssue[];
}

/**
 * Reads a manifest, parses its YAML with positions and checks it against the pipeline schema.
 * Every problem (missing file, oversize file, bad encoding, YAML syntax, duplicate keys, hostile
 * nesting or aliases, schema violations) comes back as an issue; this never throws for bad input.
 *
 * @example
 * const { loaded, issues } = await loadManifest('pipelines/nightly.yaml');
 */
export async function loadManifest(
  file: string,
  options: LoadManifestOptions = {},
): Promise<LoadManifestResult> {
  const bytes = options.source ?? (await readManifestBytes(file));
  if (isIssue(bytes)) return { issues: [bytes] };
  const size = typeof bytes === 'string' ? Buffer.byteLength(bytes) : bytes.byteLength;
  if (size > MAX_MANIFEST_BYTES) return { issues: [tooLarge(file, size)] };

  let text: string;
  if (typeof bytes === 'string') text = bytes;
  else {
    const decoded = decodeUtf8(bytes);
    if (!decoded.ok) {
      const hex = decoded.byte.toString(16).padStart(2, '0');
      return {
        issues: [
          {
            severity: 'error',
            code: 'invalid-encoding',
            message: `the file is not valid UTF-8: invalid byte 0x${hex} at byte offset ${decoded.offset} (line ${decoded.line})`,
            location: { file, line: decoded.line, col: decoded.col },
            hint: 'save the manifest as UTF-8',
          },
        ],
      };
    }
    text = decoded.text;
  }

  const parsed = parseManifestYaml(text, file);
  const issues = [...parsed.issues];
  if (!('value' in parsed)) return { issues };
  if (issues.some((issue) => issue.severity === 'error')) return { issues };
  const schema = checkManifestSchema(parsed.value, parsed.locator);
  issues.push(...sortIssues(schema.issues));
  // Errors confined to some job entries leave the rest checkable: report those jobs' problems too.
  if (schema.issues.length > 0 && schema.invalidJobs === undefined) return { issues };
  if (schema.outside !== undefined) {
    if (options.checkJobsDespiteErrors !== true || !dropBrokenParts(parsed.value, schema.outside)) {
      return { issues };
    }
  }
  const loaded: LoadedManifest = {
    file,
    dir: dirname(resolve(file)),
    manifest: parsed.value as LoadedManifest['manifest'],
    locate: parsed.locator.locate,
    locateKey: parsed.locator.locateKey,
    locateInValue: parsed.locator.locateInValue,
    ...(schema.invalidJobs === undefined ? {} : { invalidJobs: schema.invalidJobs }),
  };
  return { loaded, issues };
}

async function readManifestBytes(file: string): Promise<Uint8Array | ValidationIssue> {
  try {
    const info = await stat(file);
    if (!info.isFile()) {
      return {
        severity: 'error',
        code: 'file-not-found',
        message: `${file} is not a file`,
        hint: 'pass the path of a .yaml manifest',
      };
    }
    if (info.size > MAX_MANIFEST_BYTES) return tooLarge(file, info.size);
    return await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return {
        severity: 'error',
        code: 'file-not-found',
        message: `manifest not found: ${file}`,
        hint: `check the path; it is resolved against the current directory (${process.cwd()})`,
      };
    }
    return {
      severity: 'error',
      code: 'file-unreadable',
      message: `cannot read the manifest ${file}: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

function tooLarge(file: string, size: number): ValidationIssue {
  return {
    severity: 'error',
    code: 'file-too-large',
    message: `the manifest is ${size} bytes; the limit is ${MAX_MANIFEST_BYTES} bytes`,
    location: { file, line: 1, col: 1 },
    hint: 'split it into several manifests, or use a matrix instead of listing every job',
  };
}

/** Parts of the top level that expansion reads and that may be dropped when broken. */
const DROPPABLE = new Set(['vars', 'defaults', 'retry', 'maxJobs', 'budget', 'output', 'schedule']);

/**
 * Deletes the values at schema-error paths outside `jobs:` so the jobs can still be expanded; false
 * when the manifest cannot be expanded at all (no `jobs` list, or `jobs` itself is broken).
 */
function dropBrokenParts(value: unknown, paths: readonly YamlPath[]): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const manifest = value as Record<string, unknown>;
  if (!Array.isArray(manifest.jobs)) return false;
  for (const path of paths) {
    const [first, second] = path;
    if (first === 'jobs') return false;
    if (typeof first !== 'string' || !DROPPABLE.has(first)) continue;
    const parent = manifest[first];
    if (second !== undefined && typeof parent === 'object' && parent !== null && !Array.isArray(parent)) {
      // A broken `defaults.model` or `vars.x` goes, the rest of `defaults` / `vars` stays.
      delete (parent as Record<string | number, unknown>)[second];
    } else delete manifest[first];
  }
  return true;
}

function isIssue(value: Uint8Array | string | ValidationIssue): value is ValidationIssue {
  return typeof value === 'object' && !(value instanceof Uint8Array);
}
