import { isSecretEnvName, secretValues, type SecretGuard } from './secret-guard.js';
import { didYouMean } from '../suggest.js';
import { compileTemplate, hasTemplate, renderTemplate, type CompiledTemplate } from './template.js';
import type { LoadedManifest, SourceLocation, ValidationIssue } from './types.js';

export type VarValue = string | number | boolean;

/** One override of a var from the command line (`--var k=v`) or a var file (`--var-file F`). */
export interface VarOverride {
  value: VarValue;
  /** Where it was given, for messages: `--var` or the var file's `file:line:col`. */
  origin: { flag: '--var' } | { flag: '--var-file'; location: SourceLocation };
}

/** Inputs of {@link resolveVars}. */
export interface ResolveVarsContext {
  env: Record<string, string | undefined>;
  date: string;
  /** Overrides, later entries winning (var files first, then `--var`). */
  overrides?: ReadonlyMap<string, VarOverride>;
  secrets?: SecretGuard;
}

/** `vars` with overrides applied and templates rendered; `issues` holds every problem. */
export interface ResolvedVars {
  vars: Record<string, VarValue>;
  issues: ValidationIssue[];
}

/**
 * Applies `--var-file` and `--var` overrides to the manifest's `vars`, then renders templates inside
 * var values: `{{ other }}` (another var), `{{ env.NAME }}` and `{{ date }}`. Vars may build on each
 * other in any order; a cycle, an undefined name or a template reading the API key is an error at the
 * var's `file:line:col`. Overriding a var the manifest does not declare is an error for `--var` (a
 * typo would silently do nothing) and a warning for a var file (one file may serve many manifests).
 */
export function resolveVars(loaded: LoadedManifest, context: ResolveVarsContext): ResolvedVars {
  const declared = loaded.manifest.vars ?? {};
  const issues: ValidationIssue[] = [];
  const raw = new Map<string, { value: VarValue; where: () => SourceLocation | undefined; label: string }>();
  for (const [name, value] of Object.entries(declared)) {
    raw.set(name, { value, where: () => loaded.locate(['vars', name]), label: `vars.${name}` });
  }
  for (const [name, override] of context.overrides ?? []) {
    const origin = override.origin;
    if (!Object.hasOwn(declared, name)) {
      const hint = didYouMean(name, Object.keys(declared)) ?? 'declare it under vars: in the manifest';
      issues.push({
        severity: origin.flag === '--var' ? 'error' : 'warning',
        code: 'undeclared-var',
        message: `${origin.flag} sets "${name}", which the manifest's vars do not declare`,
        ...(origin.flag === '--var-file' ? { location: origin.location } : {}),
        hint,
      });
      if (origin.flag === '--var') continue;
    }
    raw.set(name, {
      value: override.value,
      where: () => (origin.flag === '--var-file' ? origin.location : undefined),
      label: origin.flag === '--var' ? `--var ${name}` : `var ${name}`,
    });
  }

  const secrets = secretValues(context.secrets);
  const compiled = new Map<string, CompiledTemplate>();
  for (const [name, entry] of raw) {
    if (typeof entry.value !== 'string' || !hasTemplate(entry.value)) continue;
    const result = compileTemplate(entry.value);
    if (!result.ok) {
      issues.push(problem(entry, 'template-syntax', `invalid template in ${entry.label}: ${result.message}`));
      raw.delete(name);
    } else compiled.set(name, result.template);
  }

  const vars: Record<string, VarValue> = {};
  const state = new Map<string, 'resolving' | 'done' | 'failed'>();
  const resolve = (name: string, chain: string[]): VarValue | undefined => {
    const entry = raw.get(name);
    if (entry === undefined) return undefined;
    const seen = state.get(name);
    if (seen === 'done') return vars[name];
    if (seen === 'failed') return undefined;
    if (seen === 'resolving') {
      const cycle = [...chain.slice(chain.indexOf(name)), name].join(' → ');
      issues.push(problem(entry, 'var-cycle', `vars refer to each other in a cycle: ${cycle}`));
      state.set(name, 'failed');
      return undefined;
    }
    const template = compiled.get(name);
    if (template === undefined) {
      state.set(name, 'done');
      vars[name] = entry.value;
      return entry.value;
    }
    state.set(name, 'resolving');
    let failed = false;
    const rendered = renderTemplate(template, (ref) => {
      if (ref === 'date') return context.date;
      if (ref.startsWith('env.')) {
        if (isSecretEnvName(ref.slice(4), context.env, secrets)) {
          failed = true;
          issues.push(
            problem(
              entry,
              'secret-in-template',
              `${entry.label} uses {{ ${ref} }}, which reads the API key; templates may not read it`,
            ),
          );
          return '';
        }
        return context.env[ref.slice(4)];
      }
      const value = resolve(ref, [...chain, name]);
      if (value === undefined && state.get(ref) === 'failed') {
        failed = true;
        return '';
      }
      return value === undefined ? undefined : String(value);
    });
    if (!rendered.ok) {
      for (const missing of rendered.missing) issues.push(describeMissing(entry, missing, [...raw.keys()]));
      failed = true;
    }
    if (failed || !rendered.ok) {
      if (state.get(name) !== 'failed') state.set(name, 'failed');
      return undefined;
    }
    state.set(name, 'done');
    vars[name] = rendered.text;
    return rendered.text;
  };
  for (const name of raw.keys()) resolve(name, []);
  // A broken var is reported once here; jobs see its text as written instead of a second error each.
  for (const [name, entry] of raw) if (!Object.hasOwn(vars, name)) vars[name] = entry.value;
  return { vars, issues };
}

function problem(
  entry: { where: () => SourceLocation | undefined },
  code: string,
  message: string,
): ValidationIssue {
  const location = entry.where();
  return { severity: 'error', code, message, ...(location === undefined ? {} : { location }) };
}

function describeMissing(
  entry: { where: () => SourceLocation | undefined; label: string },
  name: string,
  known: string[],
): ValidationIssue {
  if (name.startsWith('env.')) {
    return {
      ...problem(
        entry,
        'undefined-env-var',
        `environment variable "${name.slice(4)}" is not set; ${entry.label} uses {{ ${name} }}`,
      ),
      hint: `set ${name.slice(4)} in the environment before running`,
    };
  }
  return {
    ...problem(entry, 'undefined-variable', `undefined variable "${name}" in ${entry.label}`),
    hint:
      didYouMean(name, known) ??
      `a var may use other vars, {{ date }} and {{ env.NAME }}; defined vars: ${known.join(', ') || '(none)'}`,
  };
}
