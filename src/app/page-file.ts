import { statSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';

/**
 * The page a person names (`runner report --out`, `apply --report`, a manifest's `report:`), as written
 * and relative to `base` as it was. A folder gets `report.html` inside it (for a bucket's offline review
 * the results are copied beside it, #30.3: `runner report --out DIR`): one that exists, a path written
 * with a trailing slash, or a new name with no extension (`--out review`), which a person means as a
 * folder: written as a file it was a page named `review` that no browser opens by a double click. Any
 * other path (`page.html`, an existing file, `/dev/null`) is the page's own file. Without this,
 * `--out review/` wrote a file named `review` and copied the results into the folder above it, and an
 * existing folder failed on its temporary file's name.
 */
export function namedPage(named: string, base: string): string {
  return namesFolder(named, resolve(base, named)) ? join(named, 'report.html') : named;
}

function namesFolder(named: string, path: string): boolean {
  if (/[\\/]$/.test(named)) return true;
  try {
    return statSync(path).isDirectory();
  } catch {
    // Nothing there yet: a name with an extension is a file, one without is a folder. A dot file
    // (`.review`) has no extension by `extname`, and is a folder too.
    return extname(basename(path)) === '';
  }
}
