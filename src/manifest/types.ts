import type { JobKind } from '../kinds/types.js';

/** A 1-based position in a source file, printed as `file:line:col`. */
export interface SourceLocation {
  file: string;
  line: number;
  col: number;
}

/** A path into the YAML document, as ajv's instancePath segments: `['jobs', 0, 'params', 'dpi']`. */
export type YamlPath = readonly (string | number)[];

/** One problem found in the input. Validation returns all of them; nothing throws on the first. */
export interface ValidationIssue {
  severity: 'error' | 'warning';
  /** A stable, kebab-case identifier, e.g. `unknown-param`, `undefined-variable`. */
  code: string;
  /** What is wrong, in a sentence. Includes what was expected and what was found. */
  message: string;
  /** The expanded job id the issue belongs to, when it belongs to one. */
  jobId?: string;
  location?: SourceLocation;
  /** e.g. `did you mean "aspectRatio"?` */
  hint?: string;
}

/** Retry behaviour per failureKind; manifest `retry:` overrides the defaults of spec 7.3. */
export interface RetryOverrides {
  /** Attempts in all (first try included) for retryable kinds. */
  maxAttempts?: number;
  /** Wait before retry n is `backoffSeconds × 2^(n-1)`. @default 5 */
  backoffSeconds?: number;
  /** failureKind → whether to retry it. */
  failureKinds?: Record<string, 'retry' | 'defer' | 'fail'>;
}

/** The manifest as written, after the pipeline schema accepted it (`schemas/pipeline.schema.json`). */
export interface Manifest {
  version: 1;
  name: string;
  budget?: number;
  maxJobs?: number;
  /** Output folder for downloads, relative to the manifest. */
  output?: string;
  /** The HTML report of apply: `false` turns it off, a path relative to the manifest moves it. */
  report?: boolean | string;
  defaults?: { model?: string; kind?: JobKind; params?: Record<string, unknown> };
  vars?: Record<string, string | number | boolean>;
  retry?: RetryOverrides;
  /** How often the manifest runs, for the monthly figures of `runner plan` and `runner diff`. */
  schedule?: ScheduleSpec;
  jobs: JobSpec[];
}

/** Manifest `schedule:` as written: a named frequency, or a count of runs per month. */
export type ScheduleSpec = 'nightly' | 'daily' | 'weekly' | 'hourly' | { runsPerMonth: number };

export interface JobSpec {
  id: string;
  kind?: JobKind;
  model?: string;
  prompt?: string;
  params?: Record<string, unknown>;
  matrix?: MatrixSpec;
}

/**
 * A matrix value. Like GitHub Actions, an axis value may be a map (`{{ node.version }}` reads into it),
 * a list, or YAML null (renders as empty text).
 */
export type MatrixValue = string | number | boolean | null | MatrixValue[] | { [key: string]: MatrixValue };

export interface MatrixSpec {
  /** Axes: name → values. */
  [axis: string]: MatrixValue[] | Record<string, MatrixValue>[] | null | undefined;
  /** null (GitHub Actions allows an empty key) is the same as absent. */
  include?: Record<string, MatrixValue>[] | null;
  exclude?: Record<string, MatrixValue>[] | null;
}

/**
 * A reference to a local file, found where a param holds a path instead of a URL. It is uploaded once
 * per distinct content at apply time; the idempotency key hashes `sha256`, not the uploaded URL.
 */
export interface LocalFileRef {
  readonly localFile: string;
  /** Absolute path. */
  readonly path: string;
  readonly sha256: string;
  readonly contentType: string;
  readonly bytes: number;
}

/** One job after templates and the matrix were expanded. */
export interface ExpandedJob {
  /** Unique within the manifest; safe as a file name (no path separators). */
  id: string;
  kind: JobKind;
  model: string;
  prompt?: string;
  /** Defaults merged under the job's own params, templates rendered. Local paths still strings here. */
  params: Record<string, unknown>;
  /** The matrix values that produced this job (empty for a plain job). */
  matrixValues: Record<string, MatrixValue>;
  /** The index of the job entry in `jobs:` that this came from. */
  specIndex: number;
  /** Where things came from, for `file:line:col` in messages. */
  origins: {
    job: YamlPath;
    model: YamlPath;
    prompt?: YamlPath;
    /** param name → where its value was written (the job's params or `defaults.params`). */
    params: Record<string, YamlPath>;
  };
}

/** A manifest read from disk with what is needed to point at its lines. */
export interface LoadedManifest {
  /** The path as the user gave it (used in messages). */
  file: string;
  /** Absolute directory of the manifest; local files resolve against it. */
  dir: string;
  manifest: Manifest;
  /**
   * Entries of `jobs:` that failed the schema (their errors are in the issues); every step skips
   * them so the other jobs are still checked in the same run.
   */
  invalidJobs?: ReadonlySet<number>;
  /** The source location of a YAML path; walks up to the nearest existing parent node. */
  locate(path: YamlPath): SourceLocation;
  /** Where the key of the map entry at `path` starts (for problems with a key's name); falls back to `locate`. */
  locateKey?(path: YamlPath): SourceLocation;
  /**
   * Where character `offset` of the string value at `path` sits in the source (a `{{` of a template,
   * even inside a block scalar); falls back to `locate` when it cannot be mapped.
   */
  locateInValue?(path: YamlPath, offset: number): SourceLocation;
}
