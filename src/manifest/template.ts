/**
 * Templates in ids, prompts and string params.
 *
 * - `{{ name }}` inserts a variable; whitespace inside the braces is optional.
 * - Names: matrix values, `vars`, the built-ins `date` (the run date, YYYY-MM-DD), `index` (0-based
 *   position of the job within its matrix entry), `job.kind`, `job.model`, and `env.NAME` (an
 *   environment variable, only when referenced explicitly).
 * - Escaping: `\{{` writes a literal `{{` (the backslash is removed). A backslash anywhere else is kept.
 * - An undefined name is an error, never an empty string.
 * - Values are inserted as they are: a `{{` inside a var or matrix value is not expanded again.
 *
 * @example
 * const compiled = compileTemplate('hero-{{ product }}');
 * if (compiled.ok) renderTemplate(compiled.template, (name) => ({ product: 'latte' })[name]);
 * // → { ok: true, text: 'hero-latte' }
 */

/** A `{{ name }}` reference; `offset` is where its `{{` starts in the source. */
export interface TemplateRef {
  readonly name: string;
  readonly offset: number;
}

/** A parsed template: literal text and references, ready to render many times. */
export interface CompiledTemplate {
  readonly source: string;
  readonly parts: readonly (string | TemplateRef)[];
  /** The distinct names referenced, in order of first use. */
  readonly names: readonly string[];
}

export type CompileResult =
  { ok: true; template: CompiledTemplate } | { ok: false; message: string; offset: number };

export type RenderResult = { ok: true; text: string } | { ok: false; missing: string[] };

/** Resolves a template name to its text, or undefined when the name is not defined. */
export type ResolveName = (name: string) => string | undefined;

const TOKEN = /\\\{\{|\{\{\s*([^{}]*?)\s*\}\}|\{\{/g;
// Hyphens (`node-version`) and dotted paths into map values (`node.version`), as GitHub Actions allows.
const NAME = /^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/;

/** True when `source` contains template syntax; strings without it are used as they are. */
export function hasTemplate(source: string): boolean {
  return source.includes('{{');
}

/** Parses a template once; a bad `{{` (unclosed, empty, not a name) is reported with its offset. */
export function compileTemplate(source: string): CompileResult {
  const parts: (string | TemplateRef)[] = [];
  const names: string[] = [];
  let literal = '';
  let last = 0;
  TOKEN.lastIndex = 0;
  for (let match = TOKEN.exec(source); match !== null; match = TOKEN.exec(source)) {
    literal += source.slice(last, match.index);
    last = match.index + match[0].length;
    if (match[0] === '\\{{') {
      literal += '{{';
      continue;
    }
    const name = match[1];
    if (name === undefined)
      return { ok: false, message: describeBareBraces(source, match.index), offset: match.index };
    if (!NAME.test(name)) {
      return {
        ok: false,
        message: `"${match[0]}" is not a variable reference: expected {{ name }}, {{ env.NAME }} or {{ job.kind }}`,
        offset: match.index,
      };
    }
    if (literal !== '') parts.push(literal);
    literal = '';
    parts.push({ name, offset: match.index });
    if (!names.includes(name)) names.push(name);
  }
  literal += source.slice(last);
  if (literal !== '') parts.push(literal);
  return { ok: true, template: { source, parts, names } };
}

/** Why a `{{` at `offset` starts no reference: unclosed, `{{{`, or a brace before its `}}`. */
function describeBareBraces(source: string, offset: number): string {
  const at = `at character ${offset + 1}`;
  if (source[offset + 2] === '{') {
    return `"{{{" ${at}: a template is exactly {{ name }}; to put braces around a value write "{ {{ name }} }"`;
  }
  if (source.includes('}}', offset + 2)) {
    return `"{{" ${at} is followed by "{" or "}" before its "}}"; expected {{ name }}`;
  }
  return `"{{" ${at} has no matching "}}"`;
}

/**
 * The text {@link renderTemplate} gives, or undefined when some name is undefined (`renderTemplate`
 * then tells which): no result object per render, for the ids and prompts of a matrix's jobs.
 */
export function renderTemplateText(template: CompiledTemplate, resolve: ResolveName): string | undefined {
  let text = '';
  for (const part of template.parts) {
    if (typeof part === 'string') text += part;
    else {
      const value = resolve(part.name);
      if (value === undefined) return undefined;
      text += value;
    }
  }
  return text;
}

/**
 * The template with each name `textOf` gives text for written into its literal text, the other names
 * kept as references (its source, names and their offsets unchanged). For the names that read the same
 * for every job of an entry (vars, `date`): resolved once, not once a job.
 */
export function bindNames(template: CompiledTemplate, textOf: ResolveName): CompiledTemplate {
  const parts: (string | TemplateRef)[] = [];
  let literal = '';
  for (const part of template.parts) {
    const text = typeof part === 'string' ? part : textOf(part.name);
    if (text !== undefined) {
      literal += text;
      continue;
    }
    if (literal !== '') parts.push(literal);
    literal = '';
    parts.push(part);
  }
  if (literal !== '') parts.push(literal);
  return { source: template.source, parts, names: template.names };
}

/** Renders a compiled template; reports every undefined name instead of inserting empty text. */
export function renderTemplate(template: CompiledTemplate, resolve: ResolveName): RenderResult {
  let text = '';
  let missing: string[] | undefined;
  for (const part of template.parts) {
    if (typeof part === 'string') {
      text += part;
      continue;
    }
    const value = resolve(part.name);
    if (value === undefined) {
      missing ??= [];
      if (!missing.includes(part.name)) missing.push(part.name);
    } else text += value;
  }
  return missing ? { ok: false, missing } : { ok: true, text };
}
