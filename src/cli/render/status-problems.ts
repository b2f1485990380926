import { FAILURE_ADVICE } from '../../execute/failure-policy.js';
import type { JobStatusView } from '../../state/status-view.js';
import type { Style } from '../output.js';

/** Longest error text shown per job in the text view; `--json` has it whole (as journaled). */
const MAX_ERROR_CHARS = 400;

/** Advice for a create the service refused (journaled as `CODE: message`, no failureKind). */
const CREATE_REFUSAL_ADVICE: Readonly<Record<string, string>> = {
  SERVICE_VALIDATION:
    'The service refused the request: fix the job in the manifest; nothing was created or charged.',
  NOT_FOUND: 'The service did not find something the job refers to (a model, an uploaded file): fix the job.',
};

/**
 * The text view's section on jobs that need attention (#7.5): for each failed, uncertain or deferred
 * job its error text, then what to do about it (the advice for its failure kind).
 */
export function renderStatusProblems(
  jobs: readonly JobStatusView[],
  style: Style,
  commands: { resend: string; downloadOnly: string },
): string[] {
  const lines: string[] = [];
  for (const job of jobs) {
    if (job.status === 'downloading') {
      lines.push(...describeOwed(job, style, commands.downloadOnly));
      continue;
    }
    if (job.status !== 'failed' && job.status !== 'uncertain' && job.status !== 'deferred') continue;
    const label = job.failureKind === undefined ? job.status : `${job.status}, ${job.failureKind}`;
    const error = job.error === undefined ? '' : `: ${oneLine(job.error)}`;
    const line = `  ${job.id} (${label})${error}`;
    lines.push(job.status === 'failed' ? style.red(line) : style.yellow(line));
    const advice = adviceFor(job, commands.resend);
    if (advice !== undefined) lines.push(style.dim(`    ${advice}`));
  }
  return lines.length === 0 ? [] : ['', style.bold('Needs attention:'), ...lines];
}

/** A done job whose results are not all saved: what is owed, until when, and how to fetch it (#20.8). */
function describeOwed(job: JobStatusView, style: Style, downloadCommand: string): string[] {
  const until = job.resultsExpireAt === undefined ? '' : `; the links expire ${job.resultsExpireAt}`;
  return [
    style.yellow(`  ${job.id} (downloading): paid, ${job.resultsOwed ?? 0} result(s) not saved${until}`),
    style.dim(
      `    \`${downloadCommand}\` (with the run's --output, if it had one) fetches them; it creates and pays nothing.`,
    ),
  ];
}

function adviceFor(job: JobStatusView, resendCommand: string): string | undefined {
  if (job.status === 'uncertain') {
    return `It may exist and be paid for: check the service first; \`${resendCommand}\` sends it again.`;
  }
  if (job.status === 'deferred') {
    const kind = job.failureKind === undefined ? undefined : kindAdvice(job.failureKind);
    const when = job.notBefore === undefined ? '' : ` A later apply retries it from ${job.notBefore}.`;
    return `${kind ?? 'A temporary failure.'}${when}`;
  }
  const byKind = job.failureKind === undefined ? undefined : kindAdvice(job.failureKind);
  if (byKind !== undefined)
    return `${byKind} Changed jobs are re-sent by the next apply; --retry-failed re-sends unchanged ones.`;
  const code = /^([A-Z_]+):/.exec(job.error ?? '')?.[1];
  const refusal = code === undefined ? undefined : CREATE_REFUSAL_ADVICE[code];
  return (
    refusal ?? (job.failureKind === undefined ? undefined : `${job.failureKind}: --retry-failed re-sends it.`)
  );
}

function kindAdvice(kind: string): string | undefined {
  const text = (FAILURE_ADVICE as Record<string, string | undefined>)[kind];
  return text === undefined ? undefined : `${kind}: ${text}`;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_ERROR_CHARS ? `${flat.slice(0, MAX_ERROR_CHARS)}… (see --json)` : flat;
}
