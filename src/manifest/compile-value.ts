import {
  bindNames,
  compileTemplate,
  hasTemplate,
  renderTemplate,
  renderTemplateText,
  type CompiledTemplate,
  type ResolveName,
} from './template.js';
import type { YamlPath } from './types.js';

/** A param value with its templates compiled once, rendered once per job. */
export type ValueNode =
  | { readonly type: 'static'; readonly value: unknown }
  | { readonly type: 'template'; readonly template: CompiledTemplate; readonly path: YamlPath }
  | { readonly type: 'array'; readonly items: readonly ValueNode[] }
  | { readonly type: 'object'; readonly entries: readonly (readonly [string, ValueNode])[] };

/** Called with the path of a string whose template does not parse; `offset` is where in the string. */
export type OnTemplateError = (path: YamlPath, message: string, offset: number) => void;
/** Called with the path of a string that references undefined names, and the template they are in. */
export type OnMissingNames = (path: YamlPath, names: readonly string[], template: CompiledTemplate) => void;

/** Compiles every string inside `value` (deep: lists and maps) that contains `{{`. */
export function compileValue(value: unknown, path: YamlPath, onError: OnTemplateError): ValueNode {
  if (typeof value === 'string') {
    if (!hasTemplate(value)) return { type: 'static', value };
    const compiled = compileTemplate(value);
    if (!compiled.ok) {
      onError(path, compiled.message, compiled.offset);
      return { type: 'static', value };
    }
    return { type: 'template', template: compiled.template, path };
  }
  if (Array.isArray(value)) {
    const items = value.map((item: unknown, index) => compileValue(item, [...path, index], onError));
    return items.every((item) => item.type === 'static')
      ? { type: 'static', value }
      : { type: 'array', items };
  }
  if (isPlainObject(value)) {
    const entries = Object.entries(value).map(
      ([key, item]) => [key, compileValue(item, [...path, key], onError)] as const,
    );
    return entries.every(([, item]) => item.type === 'static')
      ? { type: 'static', value }
      : { type: 'object', entries };
  }
  return { type: 'static', value };
}

/**
 * Renders a compiled value into a fresh copy (jobs never share mutable objects). Undefined names are
 * reported through `onMissing`; the result then holds the source text at that place.
 */
export function renderValue(node: ValueNode, resolve: ResolveName, onMissing: OnMissingNames): unknown {
  switch (node.type) {
    case 'static':
      return cloneValue(node.value);
    case 'template': {
      const text = renderTemplateText(node.template, resolve);
      if (text !== undefined) return text;
      const result = renderTemplate(node.template, resolve);
      onMissing(node.path, result.ok ? [] : result.missing, node.template);
      return node.template.source;
    }
    case 'array':
      return node.items.map((item) => renderValue(item, resolve, onMissing));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, item] of node.entries) out[key] = renderValue(item, resolve, onMissing);
      return out;
    }
  }
}

/**
 * The value with the names `textOf` gives text for written into its templates (see `bindNames`); its
 * node types unchanged, so a template whose every name was bound still renders as a template.
 */
export function bindValueNames(node: ValueNode, textOf: ResolveName): ValueNode {
  switch (node.type) {
    case 'static':
      return node;
    case 'template':
      return { type: 'template', template: bindNames(node.template, textOf), path: node.path };
    case 'array':
      return { type: 'array', items: node.items.map((item) => bindValueNames(item, textOf)) };
    case 'object':
      return {
        type: 'object',
        entries: node.entries.map(([key, item]) => [key, bindValueNames(item, textOf)] as const),
      };
  }
}

function cloneValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneValue);
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = cloneValue(item);
    return out;
  }
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
