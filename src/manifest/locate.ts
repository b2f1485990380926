import { isMap, isScalar, type Document, type LineCounter, type Node } from 'yaml';
import type { SourceLocation, YamlPath } from './types.js';

/** Maps YAML paths of one parsed document to `file:line:col`. */
export interface Locator {
  readonly file: string;
  /** Where the value at `path` starts; walks up to the nearest existing parent node. */
  readonly locate: (path: YamlPath) => SourceLocation;
  /** Where the key of the entry at `path` starts (for unknown keys); falls back to {@link locate}. */
  readonly locateKey: (path: YamlPath) => SourceLocation;
}

/** A locator over a parsed document; `file` is the name printed in locations. */
export function createLocator(doc: Document, lineCounter: LineCounter, file: string): Locator {
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
  return { file, locate, locateKey };
}

function isNodeWithRange(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && 'range' in value;
}
