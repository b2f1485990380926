import { readableUtcTime } from '../readable-time.js';
import { FAILURE_ADVICE, isFailureKind } from './failure-policy.js';
import type { FailureKind } from '../service/types.js';

/** What a job that is not done is, as the advice needs it (a status view's job or a report entry). */
export interface AdvisedJob {
  status: string;
  failureKind?: string | undefined;
  /** The latest attempt's error text; a refused create journals it as `CODE: message`. */
  error?: string | undefined;
  /** ISO time a deferred job may be tried again. */
  notBefore?: string | undefined;
}

/**
 * The commands the advice names, with the flags that locate the run (src/app/rerun-command.ts), when
 * the caller knows them; otherwise the advice names the flag on `runner apply`.
 */
export interface AdviceCommands {
  retryFailed: string;
  resend: string;
}

const FLAGS_ONLY: AdviceCommands = {
  retryFailed: 'runner apply … --retry-failed',
  resend: 'runner apply … --resend-uncertain',
};

/** Advice for a create the service refused (journaled as `CODE: message`, no failureKind). */
const CREATE_REFUSAL_ADVICE: Readonly<Record<string, string>> = {
  SERVICE_VALIDATION:
    'The service refused the request: fix the job in the manifest; nothing was created or charged.',
  NOT_FOUND: 'The service did not find something the job refers to (a model, an uploaded file): fix the job.',
};

/**
 * What a failed kind needs after spec 7.3's advice: nothing for a job to change in the manifest (the
 * next apply re-sends a changed job, and re-sending it unchanged only fails again), a re-send for a
 * temporary failure the runner gave up on, and support first for a problem on the service side.
 */
const AFTER_FAILURE: Readonly<Record<FailureKind, 'change' | 'resend' | 'support'>> = {
  PROMPT_UNCLEAR: 'change',
  CONTENT_REJECTED: 'change',
  TRANSPARENT_CREATION_FAILED: 'change',
  REFERENCE_DOWNLOAD_FAILED: 'change',
  GENERATION_TIMEOUT: 'resend',
  QUOTA_EXHAUSTED: 'resend',
  SESSION_EXPIRED: 'support',
  INVALID_PAYLOAD: 'support',
};

/**
 * What to do about a job that is not done (#33.11): one text, which `runner status`, the HTML report,
 * the results index, JUnit and the step summary all show, so no two of them advise differently.
 * Undefined for a job that needs nothing (done, pending, running).
 */
export function adviseJob(job: AdvisedJob, commands: AdviceCommands = FLAGS_ONLY): string | undefined {
  const { failureKind } = job;
  switch (job.status) {
    case 'uncertain':
      return `The create's answer was lost: the job may exist and be paid for. Check the service first; \`${commands.resend}\` sends it again.`;
    case 'deferred': {
      const when =
        job.notBefore === undefined ? '' : ` from ${readableUtcTime(job.notBefore, { seconds: true })}`;
      const why = isFailureKind(failureKind) ? FAILURE_ADVICE[failureKind] : 'A temporary failure.';
      return `${why} A later apply retries it${when}.`;
    }
    case 'failed':
      return adviseFailed(job, commands);
    default:
      return undefined;
  }
}

function adviseFailed(job: AdvisedJob, commands: AdviceCommands): string {
  const { failureKind } = job;
  const resend = `\`${commands.retryFailed}\` re-sends it`;
  if (isFailureKind(failureKind)) {
    const advice = FAILURE_ADVICE[failureKind];
    switch (AFTER_FAILURE[failureKind]) {
      case 'change':
        return advice;
      case 'resend':
        return `${advice} ${resend}.`;
      case 'support':
        return `${advice} Once it is solved, ${resend}.`;
    }
  }
  if (failureKind !== undefined) {
    return `The service reported an unknown failure kind "${failureKind}": ${resend}; contact support if it repeats.`;
  }
  const code = /^([A-Z_]+):/.exec(job.error ?? '')?.[1];
  return (
    (code === undefined ? undefined : CREATE_REFUSAL_ADVICE[code]) ??
    'The service refused the job: fix what the error names, then apply again.'
  );
}
