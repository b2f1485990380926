#!/usr/bin/env node
import { runCli } from './main.js';

// The only place that exits the process. Waiting for stdout to drain keeps piped JSON whole.
// (No top-level await: the bundle of the CLI is a CommonJS script, see scripts/bundle.js.)
void runCli(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
}).then((code) => {
  process.exitCode = code;
  process.stdout.write('', () => process.exit(code));
});
