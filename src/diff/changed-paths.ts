import { canonicalJson } from '../canonical-json.js';
import type { FieldChange } from './cost-diff.js';
import type { DiffJob } from './plan-document.js';

/** Longest value shown of a changed field (the plan reports have it whole). */
export const MAX_VALUE_CHARS = 40;

/** Characters kept before the first difference of two long texts, so the cut shows what differs. */
const CONTEXT_CHARS = 12;

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
  return changedFields(base, head).map((change) => change.path);
}

/**
 * {@link changedPaths} with each field's value on both sides (#33.8): `params.numImages` `1` → `3`,
 * `model` `a` → `b`. A value is shown as text (a string as is, a local file by its path, a list or map
 * as canonical JSON), cut to {@link MAX_VALUE_CHARS} with `…`; two long texts are cut around their first
 * difference, so two prompts that share a long start still show what differs.
 */
export function changedFields(
  base: Pick<DiffJob, 'kind' | 'model' | 'prompt' | 'params'>,
  head: Pick<DiffJob, 'kind' | 'model' | 'prompt' | 'params'>,
): FieldChange[] {
  const changes: Raw[] = [];
  if (base.kind !== head.kind) changes.push({ path: 'kind', base: base.kind, head: head.kind });
  if (base.model !== head.model) changes.push({ path: 'model', base: base.model, head: head.model });
  if (base.prompt !== head.prompt) changes.push({ path: 'prompt', base: base.prompt, head: head.prompt });
  compareMaps(base.params, head.params, 'params', 1, changes);
  return changes.map(({ path, base: a, head: b }) => {
    const [shownA, shownB] = showPair(a === undefined ? null : textOf(a), b === undefined ? null : textOf(b));
    return { path, base: shownA, head: shownB };
  });
}

interface Raw {
  path: string;
  base: unknown;
  head: unknown;
}

/** A value as people read it: a string as is, a local file by its path, anything else as canonical JSON. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (isMap(value) && isFileRef(value)) return value.file as string;
  return canonicalJson(value);
}

/** Both values cut to {@link MAX_VALUE_CHARS}, from a little before where they first differ. */
function showPair(a: string | null, b: string | null): [string | null, string | null] {
  if (a === null || b === null) return [a === null ? null : cutFrom(a, 0), b === null ? null : cutFrom(b, 0)];
  let same = 0;
  while (same < a.length && same < b.length && a[same] === b[same]) same++;
  const from = Math.max(a.length, b.length) > MAX_VALUE_CHARS ? Math.max(0, same - CONTEXT_CHARS) : 0;
  return [cutFrom(a, from), cutFrom(b, from)];
}

function cutFrom(text: string, from: number): string {
  const start = Math.min(from, Math.max(0, text.length - 1));
  const head = start > 0 ? '…' : '';
  const room = MAX_VALUE_CHARS - head.length;
  const rest = [...text.slice(start)];
  return rest.length <= room ? `${head}${rest.join('')}` : `${head}${rest.slice(0, room - 1).join('')}…`;
}

function compareMaps(
  base: Record<string, unknown>,
  head: Record<string, unknown>,
  at: string,
  depth: number,
  changes: Raw[],
): void {
  const keys = [...new Set([...Object.keys(base), ...Object.keys(head)])].sort();
  for (const key of keys) {
    const a = base[key];
    const b = head[key];
    const path = `${at}.${key}`;
    if (isMap(a) && isMap(b) && depth < MAX_DEPTH && !isFileRef(a) && !isFileRef(b)) {
      compareMaps(a, b, path, depth + 1, changes);
    } else if (a === undefined || b === undefined ? a !== b : canonicalJson(a) !== canonicalJson(b)) {
      changes.push({ path, base: a, head: b });
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
