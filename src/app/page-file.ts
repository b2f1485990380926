import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The page a person names (`runner report --out`, `apply --report`, a manifest's `report:`), as written
 * and relative to `base` as it was: a folder, one that exists or a path written with a trailing slash,
 * gets `report.html` inside it (for a bucket's offline review the results are copied beside it, #30.3:
 * `runner report --out DIR`); any other path is the page's own file. Without this, `--out review/` wrote
 * a file named `review` and copied the results into the folder above it, and an existing folder failed
 * on its temporary file's name.
 */
export function namedPage(named: string, base: string): string {
  return /[\\/]$/.test(named) || isFolder(resolve(base, named)) ? join(named, 'report.html') : named;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
