/** Hooks thread of `module-count.js`: appends the URL of every `file:` module loaded. */
import { appendFileSync } from 'node:fs';

let listFile;

export function initialize(data) {
  listFile = data.listFile;
}

export async function load(url, context, nextLoad) {
  if (url.startsWith('file:')) appendFileSync(listFile, `${url}\n`);
  return nextLoad(url, context);
}
