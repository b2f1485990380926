import type { ValidationIssue } from '../manifest/types.js';
import type { Model } from '../service/types.js';
import type { RunsView, StatusView } from '../state/index.js';
import type { Style } from '../text-style.js';
import type { UnfinishedRunsRenderer } from './warn-unfinished-runs.js';

/**
 * The views the CLI passes to the use cases of the read-only commands (src/cli/render/): a use case
 * says what to show, the view how.
 */

/** Renders a manifest's problems for stderr (src/cli/render/issues.ts), passed in by the CLI. */
export type RenderIssues = (issues: readonly ValidationIssue[], manifestFile: string, style: Style) => string;

/** How `runner status` shows a run (./status.ts). */
export interface StatusCommandView {
  renderIssues: RenderIssues;
  /** The table of jobs, with the commands that follow up failed and uncertain jobs and owed results. */
  renderStatus: (
    view: StatusView,
    style: Style,
    width: number,
    commands: { resend: string; retryFailed: string; downloadOnly: string; resume: string },
  ) => string;
}

/** How `runner runs` shows the runs of a pipeline (./runs.ts). */
export interface RunsCommandView {
  renderIssues: RenderIssues;
  /** The table of runs. */
  renderRuns: (view: RunsView, style: Style, width: number) => string;
  /** Warnings for the runs left unfinished. */
  renderUnfinishedRuns: UnfinishedRunsRenderer;
}

/** What `runner validate` needs from outside (./validate.ts). */
export interface ValidateEffects {
  /** The service's catalog, asked only when no `--catalog` file is given. */
  fetchCatalog: () => Promise<Model[]>;
  view: {
    renderIssues: RenderIssues;
    /** The problems as `--json` prints them. */
    issuesToJson: (issues: readonly ValidationIssue[], manifestFile: string) => object;
    /** Whether the run is on GitHub Actions, where each problem is also an annotation. */
    isGithubActions: (env: NodeJS.ProcessEnv) => boolean;
    /** Each problem as a GitHub Actions annotation line (`::error file=…::`). */
    renderAnnotations: (issues: readonly ValidationIssue[], manifestFile: string) => string[];
  };
}
