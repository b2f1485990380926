import { parseManifestYaml } from './parse-yaml.js';
import type { VarOverride } from './resolve-vars.js';
import type { ValidationIssue } from './types.js';

/** A var name, as the pipeline schema's `variableName`. */
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Reads a `--var-file` (YAML: a map of var name → string, number or boolean) into overrides, each
 * remembering its `file:line:col`. Every problem is an issue; nothing throws.
 */
export function parseVarFile(
  text: string,
  file: string,
): { overrides: Map<string, VarOverride>; issues: ValidationIssue[] } {
  const overrides = new Map<string, VarOverride>();
  const parsed = parseManifestYaml(text, file);
  const issues = [...parsed.issues];
  if (!('value' in parsed) || issues.some((issue) => issue.severity === 'error'))
    return { overrides, issues };
  const value = parsed.value;
  if (value === null || value === undefined) return { overrides, issues };
  if (typeof value !== 'object' || Array.isArray(value)) {
    issues.push({
      severity: 'error',
      code: 'invalid-var-file',
      message: `the var file must be a map of var name → value, found ${Array.isArray(value) ? 'a list' : typeof value}`,
      location: parsed.locator.locate([]),
      hint: 'write one `name: value` per line',
    });
    return { overrides, issues };
  }
  for (const [name, item] of Object.entries(value as Record<string, unknown>)) {
    const location = parsed.locator.locate([name]);
    if (!VAR_NAME.test(name)) {
      issues.push({
        severity: 'error',
        code: 'invalid-var-name',
        message: `"${name}" is not a var name: expected a letter or "_", then letters, digits or "_"`,
        location: parsed.locator.locateKey([name]),
      });
      continue;
    }
    if (typeof item !== 'string' && typeof item !== 'number' && typeof item !== 'boolean') {
      issues.push({
        severity: 'error',
        code: 'wrong-type',
        message: `var "${name}" must be a string, number or boolean, found ${item === null ? 'null' : Array.isArray(item) ? 'a list' : typeof item}`,
        location,
      });
      continue;
    }
    overrides.set(name, { value: item, origin: { flag: '--var-file', location } });
  }
  return { overrides, issues };
}
