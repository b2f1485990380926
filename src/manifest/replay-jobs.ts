import { findUnsafeIdReason } from './check-job-id.js';
import { checkJobCount, DEFAULT_MAX_JOBS } from './check-job-count.js';
import { renderValue, type ValueNode } from './compile-value.js';
import {
  bindEntryConstants,
  compileSpec,
  createResolver,
  locateIn,
  type RenderingJob,
} from './compile-spec.js';
import { iterateMatrix, type MatrixCombination } from './expand-matrix.js';
import { MAX_PROMPT_LENGTH, type ExpandContext } from './expand-jobs.js';
import { resolveVars } from './resolve-vars.js';
import { collectTemplates, redactSecrets, refuseSecretTemplates, secretValues } from './secret-guard.js';
import type { ResolveName } from './template.js';
import type { ExpandedJob, LoadedManifest } from './types.js';

/** What a replay gives of each job: the parts a plan report reads back instead of keeping them. */
export type ReplayedJob = Pick<ExpandedJob, 'id' | 'prompt' | 'matrixValues'> & {
  /**
   * `JSON.stringify(prompt)`, when the replay could write it without escaping a character: the
   * prompt between quotes. Absent otherwise (the reader stringifies the prompt itself).
   */
  promptJson?: string;
};

/**
 * Characters `JSON.stringify` writes escaped: quote, backslash, controls, lone surrogates (here every
 * surrogate, paired or not: such text simply takes `JSON.stringify`).
 */
// eslint-disable-next-line no-control-regex -- control characters are exactly what JSON escapes
const ESCAPED_IN_JSON = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * The ids, prompts and matrix values of the jobs `streamJobs` yields for the same manifest and
 * context, again and in the same order (expansion is deterministic), each time it is iterated: a
 * plan that keeps no prompt reads them back from here while it writes its report.
 *
 * Only what those need is rendered: the id, the model (for `{{ job.model }}`), the prompt and the
 * params that hold a template (a job whose template names something undefined is not a job), not
 * the job, its static params nor an issue. A job is left out exactly when `streamJobs` leaves it out,
 * and its values are redacted as there. Expanding 1,000,000 jobs again cost ~0.9 s as whole jobs.
 */
export function replayJobs(loaded: LoadedManifest, context: ExpandContext): Iterable<ReplayedJob> {
  return { [Symbol.iterator]: () => replay(loaded, context) };
}

function* replay(loaded: LoadedManifest, context: ExpandContext): Generator<ReplayedJob, void, undefined> {
  const { manifest } = loaded;
  const maxJobs = context.maxJobs ?? manifest.maxJobs ?? DEFAULT_MAX_JOBS;
  const { vars } = resolveVars(loaded, {
    env: context.env,
    date: context.date,
    ...(context.varOverrides === undefined ? {} : { overrides: context.varOverrides }),
    ...(context.secrets === undefined ? {} : { secrets: context.secrets }),
  });
  const secrets = secretValues(context.secrets);
  // As `streamJobs`: a manifest over maxJobs expands a sample of each entry (and is never planned).
  const sampleSize =
    checkJobCount(loaded, maxJobs).length > 0
      ? Math.max(1, Math.floor(maxJobs / Math.max(1, manifest.jobs.length)))
      : undefined;
  let failed = false;
  const onMissing = (): void => {
    failed = true;
  };
  for (let specIndex = 0; specIndex < manifest.jobs.length; specIndex++) {
    if (loaded.invalidJobs?.has(specIndex) === true) continue;
    const spec = manifest.jobs[specIndex]!;
    const source = compileSpec(loaded, spec, specIndex, []);
    if (!source) continue;
    const nodes = [source.id, source.model, source.prompt, ...source.params.map(([, node]) => node)];
    const refused = refuseSecretTemplates(
      nodes.flatMap((node) => collectTemplates(node)),
      context.env,
      secrets,
      (path, offset) => locateIn(loaded, path, offset),
    );
    if (refused.length > 0) continue;
    const current: RenderingJob = { combination: {}, index: -1, model: source.modelSource };
    const resolve = createResolver(current, vars, context.env, context.date, source.kind);
    const compiled = bindEntryConstants(source, spec, resolve);
    // Static params cannot fail: only templated ones are rendered, to leave out the jobs they fail.
    const templated: ValueNode[] = compiled.params
      .map(([, node]) => node)
      .filter((node) => node.type !== 'static');
    // A prompt whose literal text and inserted values need no escaping is its JSON between quotes:
    // only the values are tested per job (a few short strings), not the whole prompt (JSON.stringify
    // of each prompt was ~4 % of planning 1,000,000 jobs).
    const promptNode = compiled.prompt;
    const literalsPlain =
      secrets.length === 0 &&
      promptNode?.type === 'template' &&
      promptNode.template.parts.every((part) => typeof part !== 'string' || !ESCAPED_IN_JSON.test(part));
    let plain = false;
    const resolveNotingEscapes: ResolveName = (name) => {
      const text = resolve(name);
      if (plain && text !== undefined && ESCAPED_IN_JSON.test(text)) plain = false;
      return text;
    };
    const combinations: Iterable<{ combination: MatrixCombination }> = spec.matrix
      ? iterateMatrix(spec.matrix)
      : [{ combination: {} }];
    let index = -1;
    for (const { combination } of combinations) {
      index++;
      if (sampleSize !== undefined && index >= sampleSize) break;
      failed = false;
      current.combination = combination;
      current.index = index;
      current.model = compiled.modelSource;
      const id = renderValue(compiled.id, resolve, onMissing) as string;
      if (compiled.model.type !== 'static')
        current.model = renderValue(compiled.model, resolve, onMissing) as string;
      plain = literalsPlain;
      const prompt =
        promptNode && (renderValue(promptNode, plain ? resolveNotingEscapes : resolve, onMissing) as string);
      for (const node of templated) renderValue(node, resolve, onMissing);
      if (failed || findUnsafeIdReason(id) !== undefined) continue;
      if (prompt !== undefined && prompt.length > MAX_PROMPT_LENGTH) continue;
      const job: ReplayedJob = { id, matrixValues: combination };
      if (prompt !== undefined) {
        job.prompt = prompt;
        if (plain) job.promptJson = `"${prompt}"`;
      }
      yield secrets.length === 0 ? job : redactSecrets(job, secrets).value;
    }
  }
}
