import { dirname, join, resolve } from 'node:path';
import { UPLOAD_CACHE_FILE } from './upload-cache.js';

/** The `.runner` folder next to a manifest. */
export function runnerDirFor(manifestFile: string): string {
  return join(dirname(resolve(manifestFile)), '.runner');
}

/** The folder holding every pipeline's runs: `--state-dir` when given, else `.runner/` beside the manifest. */
export function resolveStateRoot(input: { manifestFile: string; stateDir?: string }): string {
  return input.stateDir === undefined ? runnerDirFor(input.manifestFile) : resolve(input.stateDir);
}

/** What names one run's state: the manifest (its folder holds `.runner/`), pipeline, run, `--state-dir`. */
export interface RunAddress {
  manifestFile: string;
  pipeline: string;
  runId: string;
  stateDir?: string;
  /** `--state postgres://…` (or `RUNNER_STATE_URL`): the run's state is in that database, not a folder. */
  stateUrl?: string;
}

/**
 * The state directory of one run of a pipeline: `<root>/<pipeline>/<runId>/` where root is
 * `stateDir` when given, else `<manifestDir>/.runner`. Names are reduced to safe file-name characters.
 * (A journal of the old flat `--state-dir` layout is found by `locateRunState`.)
 */
export function resolveStateDir(input: RunAddress): string {
  return join(resolveStateRoot(input), toSafeSegment(input.pipeline), toSafeSegment(input.runId));
}

/** The folder of every run of one pipeline. */
export function resolvePipelineDir(input: {
  manifestFile: string;
  pipeline: string;
  stateDir?: string;
}): string {
  return join(resolveStateRoot(input), toSafeSegment(input.pipeline));
}

/** Path of the upload cache shared by every run of the manifest's folder. */
export function uploadCachePathFor(manifestFile: string): string {
  return join(runnerDirFor(manifestFile), UPLOAD_CACHE_FILE);
}

/** A single path segment: letters, digits, `.`, `_`, `-`; never `.`/`..`; never empty. */
export function toSafeSegment(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
  return cleaned === '' ? '_' : cleaned.slice(0, 120);
}
