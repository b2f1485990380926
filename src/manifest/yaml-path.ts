import type { YamlPath } from './types.js';

/**
 * A YAML path as a user reads it: `['jobs', 0, 'params', 'dpi']` → `jobs[0].params.dpi`; the empty
 * path is `(top level)`.
 */
export function formatYamlPath(path: YamlPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out === '' ? '(top level)' : out;
}

/**
 * Splits an ajv `instancePath` (`/jobs/0/params/a~1b`) into path segments, unescaping `~1` and `~0`.
 * Segments of digits become array indexes.
 */
export function parseInstancePath(instancePath: string): (string | number)[] {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((raw) => {
      const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      return /^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : segment;
    });
}
