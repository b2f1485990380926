import { readFileSync } from 'node:fs';

/** The package root: `src/cli` under vitest and `dist/cli` after the build are both two levels down. */
export const packageRoot = new URL('../../', import.meta.url);

let cached: { name: string; version: string } | undefined;

export function readPackageInfo(): { name: string; version: string } {
  cached ??= JSON.parse(readFileSync(new URL('package.json', packageRoot), 'utf8')) as {
    name: string;
    version: string;
  };
  return cached;
}
