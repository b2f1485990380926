import { isS3Output } from '../../app/output-location.js';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { RunnerError } from '../../errors.js';
import { suggestClosest } from '../../suggest.js';
import { OUTPUT_ROOT_ENV } from '../../app/output-root.js';

/** The project file read beside a manifest: where its runs keep state and results, shared by a team. */
export const PROJECT_CONFIG_FILE = 'runner.config.yaml';

/** What the project file may set, and where each value goes. */
const KEYS = {
  /** The state folder, as `--state-dir` (below the flag and RUNNER_STATE_DIR). */
  stateDir: 'stateDir',
  /** The root of default download folders, as RUNNER_OUTPUT (below the variable). */
  outputRoot: 'outputRoot',
  /**
   * Which repository's pipelines these are in shared state (#31.13), in place of the `origin` remote
   * and the manifest's path: a name, not a folder.
   */
  project: 'project',
} as const;
type Key = keyof typeof KEYS;

/** The project file's values, its relative paths resolved against its own folder. */
export interface ProjectConfig {
  file: string;
  stateDir?: string;
  outputRoot?: string;
  project?: string;
}

/**
 * Reads `runner.config.yaml` beside the manifest, if there is one: a YAML map of `stateDir` and
 * `outputRoot`, each a folder (relative to the file's folder), and `project`, a name. Every mistake (YAML syntax, an unknown
 * key with the one meant, a value that is not a non-empty string) is reported at once with its
 * `file:line:col` (exit 2). The YAML parser is loaded only when the file exists.
 */
export async function readProjectConfig(manifestFile: string): Promise<ProjectConfig | undefined> {
  const file = join(dirname(resolve(manifestFile)), PROJECT_CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new RunnerError('INVALID_INPUT', `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code}.`);
  }
  const { LineCounter, isMap, isScalar, parseDocument } = await import('yaml');
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true });
  const at = (offset: number | undefined) => {
    const { line, col } = lineCounter.linePos(offset ?? 0);
    return `${file}:${line}:${col}`;
  };
  const problems = doc.errors.map((error) => `${at(error.pos[0])} ${error.message.split('\n')[0] ?? ''}`);
  const config: ProjectConfig = { file };
  const root = doc.contents;
  if (problems.length === 0 && root !== null && !isMap(root)) {
    problems.push(`${at(root.range?.[0])} expected a map of ${Object.keys(KEYS).join(', ')}`);
  }
  if (problems.length === 0 && isMap(root)) {
    for (const pair of root.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      const keyAt = at(isScalar(pair.key) ? pair.key.range?.[0] : undefined);
      if (!Object.hasOwn(KEYS, key)) {
        const nearest = suggestClosest(key, Object.keys(KEYS));
        problems.push(
          `${keyAt} unknown key "${key}"${nearest === undefined ? '' : `: did you mean "${nearest}"?`} (expected ${Object.keys(KEYS).join(', ')})`,
        );
        continue;
      }
      const value = isScalar(pair.value) ? pair.value.value : undefined;
      if (typeof value !== 'string' || value.trim() === '') {
        const valueAt = isScalar(pair.value) ? at(pair.value.range?.[0]) : keyAt;
        problems.push(
          `${valueAt} ${key} expects ${key === 'project' ? 'a name' : 'a folder'} (a non-empty string); received ${JSON.stringify(value ?? null)}`,
        );
        continue;
      }
      if (key === 'project') config.project = value.trim();
      // outputRoot may name a bucket (s3://bucket/prefix, #30.3): a URL, not a folder relative to the file.
      else
        config[KEYS[key as Exclude<Key, 'project'>]] =
          key === 'outputRoot' && isS3Output(value) ? value : resolve(dirname(file), value);
    }
  }
  if (problems.length > 0) {
    throw new RunnerError(
      'INVALID_INPUT',
      `${PROJECT_CONFIG_FILE} is not valid:\n${problems.map((line) => `  ${line}`).join('\n')}`,
      {
        hint: 'It may set stateDir and outputRoot, each a folder relative to it (e.g. `stateDir: .runner-state`), and project, a name.',
      },
    );
  }
  return config;
}

/**
 * Fills what the flags and the environment left unset from the project file beside the manifest
 * (flag > environment > project file > built-in default): `stateDir` into `options`, `outputRoot`
 * into the environment the command reads (as RUNNER_OUTPUT). Not read with `--simulate`, like the
 * variables. Returns the environment to use.
 */
export async function applyProjectConfig(
  options: Record<string, unknown>,
  input: {
    manifestFile: string | undefined;
    takes: ReadonlySet<string>;
    env: NodeJS.ProcessEnv;
    simulate: boolean;
  },
): Promise<NodeJS.ProcessEnv> {
  const reads = input.takes.has('state-dir') || input.takes.has('output');
  if (input.simulate || !reads || input.manifestFile === undefined || input.manifestFile === '')
    return input.env;
  const config = await readProjectConfig(input.manifestFile);
  if (config === undefined) return input.env;
  if (input.takes.has('state-dir') && config.project !== undefined) options.project = config.project;
  if (
    input.takes.has('state-dir') &&
    options.stateDir === undefined &&
    options.state === undefined &&
    config.stateDir !== undefined
  )
    options.stateDir = config.stateDir;
  if (
    input.takes.has('output') &&
    input.env[OUTPUT_ROOT_ENV] === undefined &&
    config.outputRoot !== undefined
  )
    return { ...input.env, [OUTPUT_ROOT_ENV]: config.outputRoot };
  return input.env;
}
