#!/usr/bin/env node
/**
 * The package's `prepare` script: builds dist/ wherever npm runs it.
 *
 * npm runs `prepare` after `npm install` in a clone, before `npm pack`/`npm publish`, for a git dependency
 * (after installing its devDependencies) and, the case this file exists for, for a folder dependency:
 * `npm install /path/to/clone` from another project links the clone and runs `prepare` in it with nothing
 * installed there, so `tsc` was "not found" and the install failed with no `runner` (#33.12). Here the
 * build's own toolchain is installed first when it is missing (from the lockfile, without install scripts,
 * as npm does for a git dependency), so a folder install gives a working `runner` too.
 *
 *   node scripts/prepare.js      # npm runs it; `npm run build` builds when the toolchain is there
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(args) {
  const done = spawnSync(npm, args, { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
  if (done.status !== 0) {
    process.stderr.write(
      `runner's build failed at \`npm ${args.join(' ')}\` in ${ROOT}. Build the clone by hand ` +
        '(`npm ci && npm run build` there), then install it again, or install the tarball `npm pack` makes.\n',
    );
    process.exit(done.status ?? 1);
  }
}

if (
  !existsSync(`${ROOT}node_modules/typescript/package.json`) ||
  !existsSync(`${ROOT}node_modules/esbuild/package.json`)
) {
  process.stderr.write(`runner: installing its build toolchain in ${ROOT} (a folder install; once only)…\n`);
  // --include=dev overrides an --omit=dev the outer install passed down through npm_config_omit.
  run(['ci', '--include=dev', '--ignore-scripts', '--no-audit', '--no-fund']);
}
run(['run', 'build']);
