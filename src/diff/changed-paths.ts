import { canonicalJson } from '../canonical-json.js';
import type { DiffJob } from './plan-document.js';

/** Nested params are named down to this depth (`params.a.b.c`); deeper changes name their parent. */
const MAX_DEPTH = 4;

/**
 * What differs between two payloads, as sorted dotted paths: `kind`, `model`, `prompt`,
 * `params.numImages`, `params.style.palette` (maps are followed key by key; a list is one value, so a
 * changed reference image list is `params.referenceImages`). Empty for equal payloads.
 */
export function changedPaths(
  base: Pick<DiffJob, 'kind' | 'model' | 'prompt' | 'params'>,
  head: Pick<DiffJob, 'kind' | 'model' | 'prompt' | 'params'>,
): string[] {
  const paths: string[] = [];
  if (base.kind !== head.kind) paths.push('kind');
  if (base.model !== head.model) paths.push('model');
  if (base.prompt !== head.prompt) paths.push('prompt');
  compareMaps(base.params, head.params, 'params', 1, paths);
  return paths;
}

function compareMaps(
  base: Record<string, unknown>,
  head: Record<string, unknown>,
  at: string,
  depth: number,
  paths: string[],
): void {
  const keys = [...new Set([...Object.keys(base), ...Object.keys(head)])].sort();
  for (const key of keys) {
    const a = base[key];
    const b = head[key];
    const path = `${at}.${key}`;
    if (isMap(a) && isMap(b) && depth < MAX_DEPTH && !isFileRef(a) && !isFileRef(b)) {
      compareMaps(a, b, path, depth + 1, paths);
    } else if (a === undefined || b === undefined ? a !== b : canonicalJson(a) !== canonicalJson(b)) {
      paths.push(path);
    }
  }
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A local file as the report shows it: one value, whose content changed when its hash did. */
function isFileRef(value: Record<string, unknown>): boolean {
  return typeof value.file === 'string' && typeof value.sha256 === 'string';
}
