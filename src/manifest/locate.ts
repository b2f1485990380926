import { isMap, isScalar, type Document, type LineCounter, type Node } from 'yaml';
import type { SourceLocation, YamlPath } from './types.js';

/** Maps YAML paths of one parsed document to `file:line:col`. */
export interface Locator {
  readonly file: string;
  /** Where the value at `path` starts; walks up to the nearest existing parent node. */
  readonly locate: (path: YamlPath) => SourceLocation;
  /** Where the key of the entry at `path` starts (for unknown keys); falls back to {@link locate}. */
  readonly locateKey: (path: YamlPath) => SourceLocation;
  /** Where character `offset` (a `{{`) of the string at `path` is; falls back to {@link locate}. */
  readonly locateInValue: (path: YamlPath, offset: number) => SourceLocation;
}

/**
 * A locator over a parsed document; `file` is the name printed in locations, `text` the source the
 * document was parsed from (needed by `locateInValue`).
 */
export function createLocator(doc: Document, lineCounter: LineCounter, file: string, text?: string): Locator {
  const at = (offset: number): SourceLocation => {
    const { line, col } = lineCounter.linePos(offset);
    return { file, line, col };
  };
  const nodeAt = (path: YamlPath): Node | undefined => {
    const node: unknown = doc.getIn(path, true);
    return isNodeWithRange(node) ? node : undefined;
  };
  const locate = (path: YamlPath): SourceLocation => {
    for (let length = path.length; length >= 0; length--) {
      const node = nodeAt(path.slice(0, length));
      if (node?.range) return at(node.range[0]);
    }
    return { file, line: 1, col: 1 };
  };
  const locateKey = (path: YamlPath): SourceLocation => {
    const last = path[path.length - 1];
    const parent: unknown = path.length > 0 ? doc.getIn(path.slice(0, -1), true) : undefined;
    if (isMap(parent)) {
      for (const pair of parent.items) {
        const key: unknown = pair.key;
        if (isScalar(key) && String(key.value) === String(last) && key.range) return at(key.range[0]);
      }
    }
    return locate(path);
  };
  const locateInValue = (path: YamlPath, offset: number): SourceLocation => {
    const node: unknown = doc.getIn(path, true);
    if (text === undefined || !isScalar(node) || typeof node.value !== 'string' || !node.range) {
      return locate(path);
    }
    // Escapes and folding change offsets but not the `{{` pairs: the n-th `{{` of the value is the
    // n-th of its source text. When the counts differ (a comment, an escape), stay at the value.
    const ordinal = findBraces(node.value).indexOf(offset);
    const inSource = findBraces(text.slice(node.range[0], node.range[1]));
    const found = inSource[ordinal];
    if (ordinal < 0 || found === undefined || inSource.length !== findBraces(node.value).length) {
      return locate(path);
    }
    return at(node.range[0] + found);
  };
  return { file, locate, locateKey, locateInValue };
}

/** Offsets of every `{{` in `text`, overlapping ones included (`{{{` has two). */
function findBraces(text: string): number[] {
  const offsets: number[] = [];
  for (let i = text.indexOf('{{'); i >= 0; i = text.indexOf('{{', i + 1)) offsets.push(i);
  return offsets;
}

function isNodeWithRange(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && 'range' in value;
}
