/**
 * The root of default download folders (`<root>/<pipeline>/`), instead of `runner-output/` beside the
 * manifest. Not a default of `--output` (which names the download folder itself): pipelines sharing
 * the variable must not share one folder. `--output` and the manifest's `output:` win over it; read
 * by ./apply-options.ts (resolveOutputDir); checked with the environment defaults of the flags
 * (src/cli/parse/env-defaults.ts).
 */
export const OUTPUT_ROOT_ENV = 'RUNNER_OUTPUT';
