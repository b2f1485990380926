import { readFile, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { UsageError } from '../errors.js';
import { readableUtcTime } from '../readable-time.js';
import type { JournalRecord } from '../state/index.js';

type RunRecord = Extract<JournalRecord, { type: 'run' }>;

/**
 * Which repository's pipeline a run is (#31.13). Shared state keys a run by the manifest's `name:` and
 * the run id only: two repositories whose manifests share both, on one database, applied each other's
 * run (9 jobs made for 6, one writing the other's records). The `project:` of `runner.config.yaml`
 * beside the manifest when set; else the repository's `origin` remote (normalized: `git@host:o/r.git`
 * and `https://host/o/r` are one) and the manifest's path from the repository's root, read from
 * `.git/config` without spawning git; undefined outside a git checkout or without an `origin` remote
 * (nothing to tell two repositories apart by: no check).
 */
export async function projectIdentity(
  manifestFile: string,
  configured: string | undefined,
): Promise<string | undefined> {
  if (configured !== undefined) return configured;
  const manifest = resolve(manifestFile);
  const repository = await findGitConfig(dirname(manifest));
  if (repository === undefined) return undefined;
  const origin = readOriginUrl(repository.configText);
  if (origin === undefined) return undefined;
  const path = relative(repository.root, manifest).split(sep).join('/');
  return `${normalizeRemote(origin)}:${path}`;
}

/**
 * A run is one repository's (#31.13): the identity of the latest apply that recorded one must be this
 * apply's, else a usage error (exit 2) before anything is sent. Runs recorded before the field (none
 * carries one) are taken as this apply's.
 */
export function refuseOtherProject(
  runs: readonly RunRecord[],
  project: string | undefined,
  run: { pipeline: string; runId: string; where: string },
): void {
  if (project === undefined) return;
  const recorded = runs.findLast((record) => record.project !== undefined);
  if (recorded?.project === undefined || recorded.project === project) return;
  throw new UsageError(
    `Run "${run.runId}" of pipeline "${run.pipeline}" in ${run.where} belongs to project "${recorded.project}" (recorded by the apply of ${readableUtcTime(recorded.at)}); this manifest is of project "${project}". Two repositories whose manifests share a name and a run id would pay for each other's jobs in one state. Nothing was created.`,
    {
      hint: `Give this apply its own --run id, or another pipeline name: in one of the repositories. If this is that project (its remote or the manifest's path changed), set \`project: ${recorded.project}\` in runner.config.yaml beside the manifest.`,
    },
  );
}

/**
 * `host/owner/repo` of a remote URL: scheme, user, port, `.git` and trailing slashes dropped, the host
 * in lower case (`git@github.com:o/r.git`, `ssh://git@github.com/o/r`, `https://github.com/o/r/`).
 */
export function normalizeRemote(url: string): string {
  const text = url.trim();
  const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/)(.+)$/.exec(text);
  let host: string;
  let path: string;
  if (scp !== null && !/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    host = scp[1] ?? '';
    path = scp[2] ?? '';
  } else {
    try {
      const parsed = new URL(text);
      host = parsed.hostname;
      path = parsed.pathname;
    } catch {
      return text;
    }
  }
  return `${host.toLowerCase()}/${path
    .replace(/^\/+/, '')
    .replace(/\/+$/, '')
    .replace(/\.git$/, '')}`;
}

/** The `url` of `[remote "origin"]` in a git config file's text. */
export function readOriginUrl(configText: string): string | undefined {
  let inOrigin = false;
  for (const raw of configText.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith('[')) {
      inOrigin = /^\[remote\s+"origin"\]$/.test(line);
      continue;
    }
    const url = /^url\s*=\s*(.*)$/.exec(line);
    if (inOrigin && url !== null) return url[1]?.replace(/^"(.*)"$/, '$1');
  }
  return undefined;
}

/**
 * The checkout holding `dir`: its root and its config's text. `.git` is a folder, or (a worktree, a
 * submodule) a file naming one whose `commondir` holds the shared config.
 */
async function findGitConfig(dir: string): Promise<{ root: string; configText: string } | undefined> {
  for (let current = dir; ; current = dirname(current)) {
    const dotGit = join(current, '.git');
    const info = await stat(dotGit).catch(() => undefined);
    if (info !== undefined) {
      let gitDir = dotGit;
      if (info.isFile()) {
        const pointer = /^gitdir:\s*(.+)$/m.exec(await readFile(dotGit, 'utf8'));
        if (pointer?.[1] === undefined) return undefined;
        gitDir = resolve(current, pointer[1].trim());
        const common = await readFile(join(gitDir, 'commondir'), 'utf8').catch(() => undefined);
        if (common !== undefined) gitDir = resolve(gitDir, common.trim());
      }
      const configText = await readFile(join(gitDir, 'config'), 'utf8').catch(() => undefined);
      return configText === undefined ? undefined : { root: current, configText };
    }
    if (dirname(current) === current) return undefined;
  }
}
