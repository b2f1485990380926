import { resolve } from 'node:path';
import envPaths from 'env-paths';

/**
 * The runner's cache folder: `RUNNER_CACHE_DIR` (relative to `cwd`) when set, else the platform's
 * per-user cache folder (`$XDG_CACHE_HOME/mediagen-runner` or `~/.cache/mediagen-runner` on Linux,
 * `~/Library/Caches/mediagen-runner` on macOS, `%LOCALAPPDATA%\mediagen-runner\Cache` on Windows).
 * It holds only what can be made again: deleting it is always safe.
 */
export function runnerCacheDir(env: NodeJS.ProcessEnv, cwd: string): string {
  const chosen = env.RUNNER_CACHE_DIR;
  if (chosen !== undefined && chosen !== '') return resolve(cwd, chosen);
  return envPaths('mediagen-runner', { suffix: '' }).cache;
}
