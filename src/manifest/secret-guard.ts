import type { ValueNode } from './compile-value.js';
import type { CompiledTemplate } from './template.js';
import type { SourceLocation, ValidationIssue, YamlPath } from './types.js';
import { API_KEY_ENV } from '../api-key-env.js';
import { REDACTED } from '../redacted.js';
import { formatYamlPath } from './yaml-path.js';

/** Shorter values are not treated as secrets: redacting "1" or "a" would mangle every prompt. */
const MIN_SECRET_LENGTH = 6;

/** The secrets expansion must keep out of ids, prompts and params (issue #11.4). */
export interface SecretGuard {
  /** Values never to render (the API key, from the env or `--api-key-file`). */
  values: readonly string[];
}

/** The values of `guard` worth redacting (non-trivial, distinct). */
export function secretValues(guard: SecretGuard | undefined): string[] {
  const values = (guard?.values ?? []).map((value) => value.trim());
  return [...new Set(values.filter((value) => value.length >= MIN_SECRET_LENGTH))];
}

/**
 * Whether `{{ env.NAME }}` would read the API key: NAME is `MEDIAGEN_API_KEY`, or any variable whose
 * value is the key's value (an alias like `KEY=$MEDIAGEN_API_KEY`).
 */
export function isSecretEnvName(
  name: string,
  env: Record<string, string | undefined>,
  values: readonly string[],
): boolean {
  if (name === API_KEY_ENV) return true;
  const value = env[name]?.trim();
  return value !== undefined && values.includes(value);
}

/** Every template inside a compiled value, with the YAML path of its string. */
export function collectTemplates(
  node: ValueNode | undefined,
): { template: CompiledTemplate; path: YamlPath }[] {
  if (node === undefined) return [];
  switch (node.type) {
    case 'static':
      return [];
    case 'template':
      return [{ template: node.template, path: node.path }];
    case 'array':
      return node.items.flatMap((item) => collectTemplates(item));
    case 'object':
      return node.entries.flatMap(([, item]) => collectTemplates(item));
  }
}

/**
 * One error per `{{ env.NAME }}` that reads the API key, at the `{{` of the reference. Such a template
 * would put the key into the journal, the plan report, file names and the request sent to the service.
 */
export function refuseSecretTemplates(
  templates: readonly { template: CompiledTemplate; path: YamlPath }[],
  env: Record<string, string | undefined>,
  values: readonly string[],
  locateIn: (path: YamlPath, offset: number) => SourceLocation,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const { template, path } of templates) {
    for (const part of template.parts) {
      if (typeof part === 'string' || !part.name.startsWith('env.')) continue;
      const name = part.name.slice(4);
      if (!isSecretEnvName(name, env, values)) continue;
      issues.push({
        severity: 'error',
        code: 'secret-in-template',
        message:
          name === API_KEY_ENV
            ? `${formatYamlPath(path)} uses {{ ${part.name} }}, the API key; templates may not read it`
            : `${formatYamlPath(path)} uses {{ ${part.name} }}, whose value is the API key; templates may not read it`,
        location: locateIn(path, part.offset),
        hint: 'the key would be written to the journal, the plan, file names and sent in the job; remove the reference',
      });
    }
  }
  return issues;
}

/**
 * Replaces every secret value inside strings of `value` (deep: lists and maps, keys included) by
 * {@link REDACTED}. Returns the same object when nothing matched, so the common case allocates nothing.
 */
export function redactSecrets<T>(value: T, values: readonly string[]): { value: T; redacted: boolean } {
  // Read first, copy only when needed: the walk below builds a new map per object it visits.
  if (values.length === 0 || !containsSecret(value, values)) return { value, redacted: false };
  let redacted = false;
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') {
      let text = item;
      for (const secret of values) if (text.includes(secret)) text = text.split(secret).join(REDACTED);
      if (text !== item) redacted = true;
      return text;
    }
    if (Array.isArray(item)) {
      const mapped = item.map(walk);
      return mapped.some((entry, i) => entry !== item[i]) ? mapped : item;
    }
    if (typeof item === 'object' && item !== null) {
      let changed = false;
      const out: Record<string, unknown> = {};
      for (const [key, entry] of Object.entries(item)) {
        const newKey = walk(key) as string;
        const newEntry = walk(entry);
        if (newKey !== key || newEntry !== entry) changed = true;
        out[newKey] = newEntry;
      }
      return changed ? out : item;
    }
    return item;
  };
  const result = walk(value) as T;
  return { value: result, redacted };
}

/** Whether any string inside `item` (deep: lists and maps, keys included) holds a secret value. */
function containsSecret(item: unknown, values: readonly string[]): boolean {
  if (typeof item === 'string') return values.some((secret) => item.includes(secret));
  if (typeof item !== 'object' || item === null) return false;
  if (Array.isArray(item)) return item.some((entry) => containsSecret(entry, values));
  for (const key in item) {
    if (containsSecret(key, values) || containsSecret((item as Record<string, unknown>)[key], values)) {
      return true;
    }
  }
  return false;
}
