/**
 * Preload (`node --import ./bench/module-count.js …`) that records every module file the process
 * loads and writes them, one per line, to the file named by `RUNNER_MODULE_LIST` at exit.
 *
 * ES modules are seen by a `load` hook (it runs on the hooks thread and appends each `file:` URL to the
 * list as it loads); CommonJS modules (undici, pino, …), whose own `require` calls bypass ESM hooks on
 * Node 20, are read from the CommonJS cache at exit. The two lists overlap (a CommonJS file that is
 * imported appears in both) and are deduplicated by whoever reads the list. Builtins are not counted.
 * The hooks slow loading down: time a run without this preload.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

const listFile = process.env.RUNNER_MODULE_LIST;
if (listFile !== undefined) {
  writeFileSync(listFile, '');
  register('./module-count-hooks.js', import.meta.url, { data: { listFile } });
  const cache = createRequire(import.meta.url).cache;
  process.on('exit', () => {
    const lines = Object.keys(cache).map((path) => pathToFileURL(path).href);
    appendFileSync(listFile, lines.map((line) => `${line}\n`).join(''));
  });
}
