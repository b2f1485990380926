import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import type { Simulator } from '../../src/simulator/types.js';
import type { StatusView } from '../../src/state/status-view.js';
import { runCli } from './run-cli.js';

/** The subscription image model of the simulator's catalog and its per-image credit cost there. */
export const IMAGE_MODEL = 'chatgpt-image-sangtao';

export { createRandom } from '../../src/simulator/random.js';

/** A fresh temporary folder for one test's manifest, state and output. */
export function makeWorkDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `runner-e2e-${prefix}-`));
}

/**
 * Writes a manifest of `subjects.length × styles.length` image jobs (a matrix) into `dir`; returns its
 * path and the expected job ids. Prompts are long, plain sentences (no PROMPT_UNCLEAR, no markers).
 */
export async function writeImageMatrixManifest(
  dir: string,
  input: { name: string; subjects: readonly string[]; styles: readonly string[] },
): Promise<{ file: string; jobIds: string[] }> {
  const list = (values: readonly string[]) => `[${values.join(', ')}]`;
  const text = [
    'version: 1',
    `name: ${input.name}`,
    'defaults:',
    '  kind: image',
    `  model: ${IMAGE_MODEL}`,
    'jobs:',
    "  - id: 'img-{{ subject }}-{{ style }}'",
    '    matrix:',
    `      subject: ${list(input.subjects)}`,
    `      style: ${list(input.styles)}`,
    '    prompt: A detailed {{ style }} picture of a {{ subject }} standing in a misty forest at dawn',
    '    params:',
    '      format: png',
    '',
  ].join('\n');
  const file = join(dir, `${input.name}.yaml`);
  await writeFile(file, text, 'utf8');
  const jobIds = input.subjects.flatMap((subject) => input.styles.map((style) => `img-${subject}-${style}`));
  return { file, jobIds };
}

/**
 * How most e2e tests poll: fast enough for the simulator at their time scales (apply's
 * `--poll-interval`, every 15 to 25 ms, and `--first-poll`, 50 ms after the create).
 */
export const FAST: readonly string[] = ['--poll-interval', '15-25', '--first-poll', '50'];

/** {@link FAST} for an apply that asks nothing (`--yes`). */
export const FAST_YES: readonly string[] = [...FAST, '--yes'];

/**
 * Polls fast enough for the simulator, as api-key-precedence and secret-leak poll (slower, with an
 * earlier first poll than {@link FAST}: kept as those tests were written).
 */
export const FAST_POLLS: readonly string[] = ['--poll-interval', '20-40', '--first-poll', '30'];

/**
 * Writes each key into a file of its name in `dir` as a user keeps one (the key, a newline, mode
 * 0600); returns each file's path by name.
 */
export async function writeKeyFiles<Name extends string>(
  dir: string,
  keys: Record<Name, string>,
): Promise<Record<Name, string>> {
  const paths = {} as Record<Name, string>;
  for (const [name, key] of Object.entries(keys) as [Name, string][]) {
    paths[name] = join(dir, name);
    await writeFile(paths[name], `${key}\n`, { mode: 0o600 });
  }
  return paths;
}

/**
 * One process's side of a run kept elsewhere (a database): a fresh folder named by `prefix`, an image
 * matrix manifest in it, and the `apply` arguments that run it with fast polls and the output in the
 * folder (where the state lives is the caller's).
 */
export async function writeApplyWorkspace(
  prefix: string,
  input: { name: string; subjects: readonly string[]; styles: readonly string[] },
): Promise<{ dir: string; file: string; jobIds: string[]; apply: string[] }> {
  const dir = await makeWorkDir(prefix);
  const { file, jobIds } = await writeImageMatrixManifest(dir, input);
  const apply = ['apply', file, '--yes', '--output', join(dir, 'out'), ...FAST_POLLS];
  return { dir, file, jobIds, apply };
}

/** The environment the CLI child needs to talk to `simulator`. */
export function simulatorEnv(simulator: Simulator, apiKey = simulator.apiKey): Record<string, string> {
  return { MEDIAGEN_BASE_URL: simulator.baseUrl, MEDIAGEN_API_KEY: apiKey };
}

/**
 * `runner status FILE --state-dir DIR --json`, parsed; throws with the CLI's stderr if it fails (exit 1
 * with a view is not a failure: it says results are owed, status `downloading`).
 */
export async function readStatus(
  manifestFile: string,
  stateDir: string,
  env: Record<string, string>,
): Promise<StatusView> {
  const result = await runCli(['status', manifestFile, '--state-dir', stateDir, '--json'], { env });
  if (result.code !== 0 && !(result.code === 1 && result.stdout.startsWith('{')))
    throw new Error(`runner status exited ${String(result.code)}: ${result.stderr}`);
  return JSON.parse(result.stdout) as StatusView;
}

/** SHA-256 (hex) of a file's bytes. */
export async function hashFile(file: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(file))
    .digest('hex');
}

/** Files whose bytes do not match the size and SHA-256 the state recorded (empty when all match). */
export async function findMismatchedDownloads(view: StatusView): Promise<string[]> {
  const bad: string[] = [];
  for (const job of view.jobs) {
    for (const download of job.files) {
      let bytes: Buffer;
      try {
        bytes = await readFile(download.file);
      } catch {
        bad.push(`${job.id}: ${download.file} is missing`);
        continue;
      }
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      if (sha256 !== download.sha256 || bytes.byteLength !== download.bytes) {
        bad.push(`${job.id}: ${download.file} has sha256 ${sha256} (${bytes.byteLength} bytes)`);
      }
    }
  }
  return bad;
}

/** One journal line, loosely typed (the fields these tests look at). */
export interface JournalLine {
  type: string;
  id?: string;
  attempt?: number;
  idempotencyKey?: string;
  jobId?: string;
}

/**
 * The folder of the one run under a `--state-dir` root (`<root>/<pipeline>/<run>/`), or the root itself
 * when it holds a journal directly (or nothing yet).
 */
export async function findRunDir(stateDir: string): Promise<string> {
  const journals = (await listFilesDeep(stateDir)).filter(
    (file) => file.endsWith(`${sep}journal.jsonl`) && dirname(dirname(dirname(file))) === stateDir,
  );
  if (journals.length > 1) throw new Error(`several runs under ${stateDir}: ${journals.join(', ')}`);
  return journals[0] === undefined ? stateDir : dirname(journals[0]);
}

/** The state journal's records; a torn last line left by a crash is skipped, as the runner's replay does. */
export async function readJournalLines(stateDir: string): Promise<JournalLine[]> {
  let text: string;
  try {
    text = await readFile(join(await findRunDir(stateDir), 'journal.jsonl'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const lines: JournalLine[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      lines.push(JSON.parse(line) as JournalLine);
    } catch {
      // torn write
    }
  }
  return lines;
}

/**
 * The manifest job id behind each idempotency key the runner journaled (`intent` records), so the
 * simulator's jobs can be mapped back to the logical jobs they were created for.
 */
export async function readIntentKeys(stateDir: string): Promise<Map<string, string>> {
  const keys = new Map<string, string>();
  for (const record of await readJournalLines(stateDir)) {
    if (record.type === 'intent' && record.idempotencyKey !== undefined && record.id !== undefined) {
      keys.set(record.idempotencyKey, record.id);
    }
  }
  return keys;
}

/**
 * Idempotency keys of service jobs that exist although the journal has no `created` record for them:
 * the runner died after the service accepted the create and before it journaled the jobId.
 */
export async function findUnjournaledCreates(
  stateDir: string,
  serviceJobs: readonly { idempotencyKey?: string }[],
): Promise<string[]> {
  const records = await readJournalLines(stateDir);
  const keyOf = new Map<string, string>();
  const journaled = new Set<string>();
  for (const record of records) {
    const attempt = `${record.id ?? ''}#${String(record.attempt ?? '')}`;
    if (record.type === 'intent' && record.idempotencyKey !== undefined)
      keyOf.set(attempt, record.idempotencyKey);
    if (record.type === 'created') {
      const key = keyOf.get(attempt);
      if (key !== undefined) journaled.add(key);
    }
  }
  return serviceJobs.flatMap((job) =>
    job.idempotencyKey !== undefined && !journaled.has(job.idempotencyKey) ? [job.idempotencyKey] : [],
  );
}

/** Every file under `dir`, recursively (absolute paths); `[]` when it does not exist. */
export async function listFilesDeep(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/**
 * Whether a file in the output folder is one apply writes for the whole run beside the results: the
 * HTML report and the results index (written whole, by rename: no temporary is ever left), and the
 * thumbnails and grid image in thumbnails/ (a temporary left there, a hidden file, is not one).
 */
export function isRunIndexFile(file: string): boolean {
  return (
    /(^|[/\\])(report\.html|results\.json|results\.csv|\.runner-run\.json)$/.test(file) ||
    /(^|[/\\])thumbnails[/\\][^/\\.][^/\\]*\.(webp|png)$/.test(file)
  );
}
