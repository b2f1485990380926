import { readFile } from 'node:fs/promises';
import { parseVarFile } from '../manifest/parse-var-file.js';
import type { VarOverride } from '../manifest/resolve-vars.js';
import type { ValidationIssue } from '../manifest/types.js';

/** The `--var` / `--var-file` flags as given. */
export interface VarFlags {
  vars: string[];
  varFiles: string[];
}

/**
 * Var overrides from the flags: var files in the order given, then `--var` (later wins). Unreadable
 * files and malformed `--var` values are issues, reported with the manifest's own.
 */
export async function loadVarOverrides(
  flags: VarFlags,
): Promise<{ overrides: Map<string, VarOverride>; issues: ValidationIssue[] }> {
  const overrides = new Map<string, VarOverride>();
  const issues: ValidationIssue[] = [];
  for (const file of flags.varFiles) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'read error';
      issues.push({
        severity: 'error',
        code: 'file-not-found',
        message: `cannot read --var-file ${file}: ${code}`,
        hint: 'pass the path of a YAML file of `name: value` lines',
      });
      continue;
    }
    const parsed = parseVarFile(text, file);
    issues.push(...parsed.issues);
    for (const [name, override] of parsed.overrides) overrides.set(name, override);
  }
  for (const flag of flags.vars) {
    const at = flag.indexOf('=');
    const name = at < 0 ? '' : flag.slice(0, at).trim();
    if (at < 0 || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
      issues.push({
        severity: 'error',
        code: 'invalid-var-flag',
        message: `--var expects name=value with a var name, received ${JSON.stringify(flag)}`,
        hint: 'e.g. --var brand="Acme Coffee"',
      });
      continue;
    }
    overrides.set(name, { value: flag.slice(at + 1), origin: { flag: '--var' } });
  }
  return { overrides, issues };
}
