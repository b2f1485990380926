import { isCollection, isPair, LineCounter, parseDocument, visit, type Document, type YAMLError } from 'yaml';
import { createLocator, type Locator } from './locate.js';
import type { ValidationIssue } from './types.js';

/** Deeper YAML than this is refused: no real manifest needs it, and deep input can exhaust the stack. */
export const MAX_YAML_DEPTH = 64;
/** Alias expansion budget passed to yaml's `toJS` (its own default); beyond it is a "billion laughs". */
export const MAX_ALIAS_COUNT = 100;
/** YAML syntax errors beyond this many are summarised: one broken bracket can cascade into hundreds. */
const MAX_SYNTAX_ISSUES = 20;

/** The result of {@link parseManifestYaml}. `value` is absent when the YAML could not be used. */
export interface ParsedYaml {
  value?: unknown;
  locator: Locator;
  issues: ValidationIssue[];
}

/**
 * Parses YAML text with positions. Syntax errors, duplicate keys, nesting deeper than
 * {@link MAX_YAML_DEPTH} and alias bombs become issues with `file:line:col`; nothing throws.
 */
export function parseManifestYaml(text: string, file: string): ParsedYaml {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: true, merge: true });
  const locator = createLocator(doc, lineCounter, file, text);
  const issues = collectYamlErrors(doc.errors, file, text);
  for (const warning of doc.warnings) issues.push(toIssue(warning, file, 'warning', text));
  if (issues.some((issue) => issue.severity === 'error')) return { locator, issues };

  const tooDeep = findTooDeep(doc);
  if (tooDeep !== undefined) {
    const { line, col } = lineCounter.linePos(tooDeep);
    issues.push({
      severity: 'error',
      code: 'too-deep',
      message: `the YAML is nested more than ${MAX_YAML_DEPTH} levels deep`,
      location: { file, line, col },
      hint: 'a manifest needs only a few levels; check for runaway brackets or indentation',
    });
    return { locator, issues };
  }
  try {
    return { value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }), locator, issues };
  } catch {
    let offset = 0;
    visit(doc, {
      Alias(_, node) {
        offset = node.range?.[0] ?? 0;
        return visit.BREAK;
      },
    });
    const { line, col } = lineCounter.linePos(offset);
    issues.push({
      severity: 'error',
      code: 'alias-bomb',
      message: `the YAML aliases (*name) expand to too many nodes (the limit is ${MAX_ALIAS_COUNT} alias expansions)`,
      location: { file, line, col },
      hint: 'use fewer, smaller anchors; aliases of aliases grow exponentially',
    });
    return { locator, issues };
  }
}

function collectYamlErrors(errors: readonly YAMLError[], file: string, text: string): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const exhausted = errors.find((error) => error.code === 'RESOURCE_EXHAUSTION');
  if (exhausted) {
    const issue = toIssue(exhausted, file, 'error', text);
    return [
      { ...issue, code: 'too-deep', message: `the YAML is nested too deeply to read (${issue.message})` },
    ];
  }
  for (const error of errors.slice(0, MAX_SYNTAX_ISSUES)) issues.push(toIssue(error, file, 'error', text));
  if (errors.length > MAX_SYNTAX_ISSUES) {
    issues.push({
      severity: 'error',
      code: 'yaml-syntax',
      message: `${errors.length - MAX_SYNTAX_ISSUES} more YAML syntax errors not shown`,
      location: { file, line: 1, col: 1 },
    });
  }
  return issues;
}

function toIssue(
  error: YAMLError,
  file: string,
  severity: 'error' | 'warning',
  text: string,
): ValidationIssue {
  const position = error.linePos?.[0] ?? { line: 1, col: 1 };
  // prettyErrors appends " at line L, column C:" and a code excerpt; the location is printed separately.
  const firstLine = error.message.split('\n', 1)[0] ?? error.message;
  const message = firstLine.replace(/ at line \d+, column \d+:?$/, '');
  const location = { file, line: position.line, col: position.col };
  if (error.code === 'DUPLICATE_KEY') {
    const key = (/^[^:\n]*/.exec(text.slice(error.pos[0]))?.[0] ?? '').trim();
    return {
      severity,
      code: 'duplicate-key',
      message: `duplicate key ${JSON.stringify(key)}: keys in a map must be unique`,
      location,
      hint: 'remove or rename one of the entries with this key',
    };
  }
  if (error.code === 'MULTIPLE_DOCS') {
    return {
      severity,
      code: 'multiple-documents',
      message:
        'the file holds more than one YAML document (a second one starts here, after "---"); a manifest is a single document',
      location,
      hint: 'put each pipeline in its own file, or remove the extra "---" line',
    };
  }
  return { severity, code: 'yaml-syntax', message, location };
}

/** Source offset of the first collection nested deeper than {@link MAX_YAML_DEPTH}, if any. */
function findTooDeep(doc: Document): number | undefined {
  const stack: { node: unknown; depth: number }[] = [{ node: doc.contents, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (!isCollection(node)) continue;
    if (depth > MAX_YAML_DEPTH) return node.range?.[0] ?? 0;
    for (const item of node.items) {
      if (isPair(item)) {
        stack.push({ node: item.key, depth: depth + 1 });
        stack.push({ node: item.value, depth: depth + 1 });
      } else stack.push({ node: item, depth: depth + 1 });
    }
  }
  return undefined;
}
