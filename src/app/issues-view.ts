import type { ValidationIssue } from '../manifest/types.js';
import type { Style } from '../text-style.js';

/** Renders a manifest's problems for stderr (src/cli/render/issues.ts), passed in by the CLI. */
export type RenderIssues = (issues: readonly ValidationIssue[], manifestFile: string, style: Style) => string;
