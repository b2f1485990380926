import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Issue 21: the lower floors (what a manifest, the catalog, the service and the state are) must not
 * reach up into the floors that use them (planning, executing, the CLI, the coming app layer). Read
 * from the real import graph, so a new upward import fails here, not in review.
 */
const SRC = resolve(__dirname, '../../src');

/** The floors each lower floor may import (besides itself and the loose files at the top of src/). */
const ALLOWED: Record<string, readonly string[]> = {
  // The client reads no job kind: a create names its endpoint (path, idempotency) in the request (#34.6).
  service: ['generated'],
  kinds: ['service', 'generated'],
  manifest: ['generated', 'kinds', 'service'],
  catalog: ['generated', 'kinds', 'manifest', 'service'],
  state: ['generated', 'service', 'manifest', 'catalog', 'kinds'],
  // GitHub's REST API (runner comment github): an edge of its own, like service/.
  github: [],
  // Where a run's results live (issue #30): the ResultsStore and its backends (folder, S3), an edge
  // of its own beside state/; only the shared files at the top of src/.
  results: [],
};

/** Floors nothing in {@link ALLOWED} may ever import. */
const HIGHER = ['plan', 'execute', 'cli', 'app', 'report', 'simulator'];

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The floor of a file under src/: its top folder, or '' for a loose file at the top. */
function floorOf(file: string): string {
  const parts = relative(SRC, file).split(sep);
  return parts.length > 1 ? parts[0]! : '';
}

/** Every relative import (static, re-export, type-only or dynamic) of a file, as floor arrows. */
function arrows(): { from: string; to: string; file: string; spec: string }[] {
  const found: { from: string; to: string; file: string; spec: string }[] = [];
  const pattern = /(?:from\s+|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g;
  for (const file of tsFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(pattern)) {
      const target = resolve(dirname(file), match[1]!);
      if (!target.startsWith(SRC + sep)) continue;
      const from = floorOf(file);
      const to = floorOf(target);
      if (from !== to) found.push({ from, to, file: relative(SRC, file), spec: match[1]! });
    }
  }
  return found;
}

/** Whether every import of `spec` in a file's text is `import type` (erased: no code is loaded). */
function typeOnly(text: string, spec: string): boolean {
  const quoted = spec.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const all = [...text.matchAll(new RegExp(`(import(\\s+type)?|export)[^;]*?['"]${quoted}['"]`, 'g'))];
  return all.length > 0 && all.every((match) => match[2] !== undefined);
}

/** The floors the application layer (src/app/, the use cases) may never import: only the CLI calls it. */
const ABOVE_APP = ['cli'];

describe('layering of src/', () => {
  const graph = arrows();

  it('reads a real import graph', () => {
    expect(graph.some((arrow) => arrow.from === 'plan' && arrow.to === 'catalog')).toBe(true);
    expect(graph.some((arrow) => arrow.from === 'cli' && arrow.to === 'app')).toBe(true);
  });

  it('has no arrow from a lower floor up into plan/, execute/, cli/ or app/', () => {
    const upward = graph
      .filter((arrow) => arrow.from in ALLOWED && HIGHER.includes(arrow.to))
      .map((arrow) => `${arrow.file} imports ${arrow.spec}`);
    expect(upward).toEqual([]);
  });

  it('has only the listed arrows out of the lower floors', () => {
    const unlisted = graph
      .filter((arrow) => arrow.from in ALLOWED && arrow.to !== '' && !ALLOWED[arrow.from]!.includes(arrow.to))
      .map((arrow) => `${arrow.file} imports ${arrow.spec}`);
    expect(unlisted).toEqual([]);
  });

  it('has no arrow from src/app/ up into src/cli/', () => {
    const upward = graph
      .filter((arrow) => arrow.from === 'app' && ABOVE_APP.includes(arrow.to))
      .map((arrow) => `${arrow.file} imports ${arrow.spec}`);
    expect(upward).toEqual([]);
  });

  it('has no arrow from a floor below src/app/ into src/app/ or src/cli/', () => {
    const upward = graph
      .filter((arrow) => !['app', 'cli'].includes(arrow.from) && ['app', 'cli'].includes(arrow.to))
      .map((arrow) => `${arrow.file} imports ${arrow.spec}`);
    expect(upward).toEqual([]);
  });

  it('keeps src/app/ off the folder backend: every use case reaches a run state through StateStore', () => {
    // Issue 34.1 / 31.14: apply on PostgreSQL read `.runner/` beside the manifest past the store (the
    // other runs' jobs, the unfinished runs, the output folder's guard, the first record). The folder
    // backend's modules are what its store wraps, and the journal files it reads.
    const store = join(SRC, 'state/backends/folder/folder-store.ts');
    const wrapped = [...readFileSync(store, 'utf8').matchAll(/from\s+['"](\.{1,2}\/[^'"]+)['"]/g)]
      .map((match) => relative(SRC, resolve(dirname(store), match[1]!)))
      .filter((file) => file !== 'state/state-store.js');
    const folder = new Set(
      [
        ...wrapped,
        'state/backends/folder/journal.js',
        'state/backends/folder/read-journal.js',
        'state/backends/folder/replay-run-journal.js',
      ].map((file) => file.replace(/\.js$/, '.ts')),
    );
    expect(folder.has('state/backends/folder/list-runs.ts')).toBe(true);
    const past = graph
      .filter((arrow) => arrow.from === 'app')
      .map((arrow) => ({
        arrow,
        target: relative(SRC, resolve(dirname(join(SRC, arrow.file)), arrow.spec)).replace(/\.js$/, '.ts'),
      }))
      .filter(({ target }) => folder.has(target))
      // A type (a run's summary, what `runs --json` prints) reads nothing.
      .filter(({ arrow }) => !typeOnly(readFileSync(join(SRC, arrow.file), 'utf8'), arrow.spec))
      .map(({ arrow }) => `${arrow.file} imports ${arrow.spec}`);
    expect(past).toEqual([]);
  });

  /** Each import from a file outside src/state/ into it: the file and the state module it names. */
  const intoState = graph
    .filter((arrow) => arrow.from !== 'state' && arrow.to === 'state')
    .map((arrow) => ({
      line: `${arrow.file} imports ${arrow.spec}`,
      target: relative(SRC, resolve(dirname(join(SRC, arrow.file)), arrow.spec))
        .split(sep)
        .join('/'),
    }));

  it('keeps every floor but state/ out of state/backends/, type-only imports included (#34.1)', () => {
    // A backend is reached through StateStore (`stateStoreFor`) or a function of state/index.ts that
    // picks it: code outside that reads a backend's module works on one backend only (apply on
    // PostgreSQL read `.runner/` past the store: #31.14).
    expect(intoState.some(({ target }) => target === 'state/index.js')).toBe(true);
    const past = intoState
      .filter(({ target }) => target.startsWith('state/backends/'))
      .map(({ line }) => line);
    expect(past).toEqual([]);
  });

  it('lets the other floors import the state only through its public face, state/index.ts (#34.1)', () => {
    // state-url.ts: the `--state` URL, read by the CLI at start, before any state is loaded.
    const PUBLIC = new Set(['state/index.js', 'state/state-url.js']);
    const past = intoState.filter(({ target }) => !PUBLIC.has(target)).map(({ line }) => line);
    expect(past).toEqual([]);
  });

  it('names what state/index.ts exports: no `export *` (#34.1)', () => {
    // A face that re-exports whole modules shows everything they hold, the backends' helpers included.
    const face = readFileSync(join(SRC, 'state/index.ts'), 'utf8');
    expect(face).toMatch(/^export \{/m);
    expect([...face.matchAll(/^export\s*\*.*$/gm)].map((match) => match[0])).toEqual([]);
  });

  it('has no import circle between modules, type-only imports included (#34.6)', () => {
    // A circle makes its modules one unit: none can be read, tested or moved without the others.
    const pattern = /(?:from\s+|import\s*\(\s*|import\s+)['"](\.{1,2}\/[^'"]+)['"]/g;
    const imports = new Map<string, string[]>();
    for (const file of tsFiles(SRC)) {
      const targets = [...readFileSync(file, 'utf8').matchAll(pattern)].map((match) =>
        resolve(dirname(file), match[1]!).replace(/\.js$/, '.ts'),
      );
      imports.set(file, targets);
    }
    const circles: string[] = [];
    const done = new Set<string>();
    const path: string[] = [];
    const visit = (file: string): void => {
      const at = path.indexOf(file);
      if (at >= 0) {
        circles.push([...path.slice(at), file].map((f) => relative(SRC, f)).join(' -> '));
        return;
      }
      if (done.has(file) || !imports.has(file)) return;
      path.push(file);
      for (const target of imports.get(file)!) visit(target);
      path.pop();
      done.add(file);
    };
    for (const file of imports.keys()) visit(file);
    expect(circles).toEqual([]);
  });

  it('keeps the loose files at the top of src/ below every floor', () => {
    const fromLoose = graph
      .filter((arrow) => arrow.from === '' && arrow.to !== '')
      .map((a) => `${a.file} imports ${a.spec}`);
    expect(fromLoose).toEqual([]);
  });

  it('gives the use cases typed options: no src/app/ function takes a raw flags record', () => {
    // The CLI parses cac's flags into each use case's options (src/cli/parse/); a use case that took
    // the record would read the flags' meaning again, deep inside (issue 21 item 1).
    const raw = /\b(?:flags|options|given)\??\s*:\s*Record<string,\s*unknown>/;
    const found = tsFiles(join(SRC, 'app')).filter((file) => raw.test(readFileSync(file, 'utf8')));
    expect(found.map((file) => relative(SRC, file))).toEqual([]);
  });

  it('keeps the top of src/cli/ to 12 files at most: the rest lives in its rooms (#34.4)', () => {
    // commands/ (one module per command and its registry), parse/, render/, effects/; at the top only
    // the launcher, main, the cac adapter, output, exit codes and the errors' report.
    const files = readdirSync(join(SRC, 'cli'), { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name);
    expect(files.length, files.join(', ')).toBeLessThanOrEqual(12);
  });

  it('declares every command module of src/cli/commands/ in its registry', () => {
    const dir = join(SRC, 'cli/commands');
    const registry = readFileSync(join(dir, 'registry.ts'), 'utf8');
    const modules = readdirSync(dir).filter((name) =>
      /defineCommand\(/.test(readFileSync(join(dir, name), 'utf8')),
    );
    expect(modules.length).toBeGreaterThan(10);
    const missing = modules.filter(
      (name) => name !== 'command.ts' && !registry.includes(`'./${name.replace(/\.ts$/, '.js')}'`),
    );
    expect(missing).toEqual([]);
  });

  it('lets the use cases say what happened, never an exit code (src/cli/exit-codes.ts maps them)', () => {
    const found = tsFiles(join(SRC, 'app')).filter((file) => /\bExitCode\b/.test(readFileSync(file, 'utf8')));
    expect(found.map((file) => relative(SRC, file))).toEqual([]);
  });
});
