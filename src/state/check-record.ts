import type { ErrorObject } from 'ajv';
import * as validators from '../generated/journal-record-validators.js';
import type { AttemptState, JobState } from './job-state.js';
import type { JournalRecord } from './records.js';

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** Each record type's validator, compiled from schemas/state/journal-records.schema.json. */
const VALIDATORS: Readonly<Record<JournalRecord['type'], Validate>> = {
  journal: validators.journal as Validate,
  run: validators.run as Validate,
  intent: validators.intent as Validate,
  created: validators.created as Validate,
  'create-failed': validators.createFailed as Validate,
  status: validators.status as Validate,
  completed: validators.completed as Validate,
  failed: validators.failed as Validate,
  deferred: validators.deferred as Validate,
  downloaded: validators.downloaded as Validate,
  uncertain: validators.uncertain as Validate,
  interrupted: validators.interrupted as Validate,
};

/**
 * What is wrong with the fields of a record of a known type (a missing field, a string where a
 * boolean belongs: `willRetry: "yes"` once turned a done job back to pending, #24.4), or undefined.
 */
export function checkRecordFields(record: JournalRecord): string | undefined {
  const validate = VALIDATORS[record.type];
  if (validate(record)) return undefined;
  const error = validate.errors?.[0];
  if (error === undefined) return `a "${record.type}" record that does not match its type`;
  if (error.keyword === 'required') {
    return `a "${record.type}" record without its "${String(error.params.missingProperty)}" field`;
  }
  const field = error.instancePath.slice(1).replaceAll('/', '.');
  return `a "${record.type}" record whose ${field === '' ? 'value' : `"${field}"`} ${error.message ?? 'is invalid'} (received ${describeValue(valueAt(record, error.instancePath))})`;
}

function valueAt(record: unknown, pointer: string): unknown {
  let value = record;
  for (const key of pointer.split('/').slice(1)) {
    value = (value as Record<string, unknown> | undefined)?.[key.replaceAll('~1', '/').replaceAll('~0', '~')];
  }
  return value;
}

function describeValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/** {@link checkRecordPlace}: a late copy of what the journal already holds, passed over. */
export const LATE_DUPLICATE = Symbol('late duplicate');

/** Outcomes after which the service says no more of an attempt: a new attempt follows, if any. */
const FINISHED: ReadonlySet<AttemptState['outcome']> = new Set([
  'done',
  'failed',
  'retry',
  'deferred',
  'create-failed',
  'create-refused',
]);

/**
 * Whether a record (fields already checked) fits the history of its job: a reason when it cannot
 * have been written by a runner, {@link LATE_DUPLICATE} when it repeats what the journal holds (a
 * runner paused mid-write whose lock was taken over: its write lands after the new holder's), else
 * undefined. Every attempt record needs its attempt's intent before it; a new attempt's number is
 * above every earlier one; an attempt the service finished (done, failed, deferred) takes no other
 * outcome, so a done job never goes back to pending.
 */
export function checkRecordPlace(
  jobs: ReadonlyMap<string, JobState>,
  record: JournalRecord,
): string | typeof LATE_DUPLICATE | undefined {
  if (!('id' in record)) return undefined;
  const job = jobs.get(record.id);
  if (record.type === 'downloaded') {
    return job === undefined || job.attempts.length === 0
      ? `a download of job ${record.id}, which was never created`
      : undefined;
  }
  const attempt = job === undefined ? undefined : findAttempt(job, record.attempt);
  if (record.type === 'intent') {
    if (attempt === undefined) {
      const last = job?.attempts.at(-1)?.attempt ?? 0;
      return record.attempt > last
        ? undefined
        : `an intent for attempt ${record.attempt} of job ${record.id} after attempt ${last} (attempt numbers only grow)`;
    }
    if (attempt.outcome === 'creating' || (attempt.outcome === 'uncertain' && attempt.jobId === undefined)) {
      // A re-send of an unanswered create.
      return attempt === job?.attempts.at(-1)
        ? undefined
        : `an intent re-sending attempt ${record.attempt} of job ${record.id} after a later attempt`;
    }
    return attempt.payloadHash === record.payloadHash
      ? LATE_DUPLICATE
      : `an intent for attempt ${record.attempt} of job ${record.id}, which was sent with another payload and is ${attempt.outcome}`;
  }
  if (attempt === undefined) {
    return `a "${record.type}" record for attempt ${record.attempt} of job ${record.id}, which was never intended (no intent before it)`;
  }
  const state = `attempt ${record.attempt} of job ${record.id} is ${describeOutcome(attempt)}`;
  switch (record.type) {
    case 'created':
      if (
        attempt.jobId === undefined &&
        (attempt.outcome === 'creating' || attempt.outcome === 'uncertain')
      ) {
        return undefined;
      }
      return attempt.jobId === record.jobId
        ? LATE_DUPLICATE
        : `a "created" record naming job ${record.jobId}, but ${state}`;
    case 'create-failed':
      if (attempt.outcome === 'creating') return undefined;
      // The refusal of a create its sender's lease ended during; the taker called it uncertain.
      if (record.late === true && attempt.outcome === 'uncertain' && attempt.jobId === undefined) {
        return undefined;
      }
      return attempt.outcome === (record.final ? 'create-failed' : 'create-refused')
        ? LATE_DUPLICATE
        : `a "create-failed" record, but ${state}`;
    case 'uncertain':
      return FINISHED.has(attempt.outcome) ? `an "uncertain" record, but ${state}` : undefined;
    case 'status':
    case 'completed':
    case 'failed':
    case 'deferred':
      if (attempt.jobId === undefined) {
        return `a "${record.type}" record for attempt ${record.attempt} of job ${record.id}, which has no job id (no "created" record)`;
      }
      if (attempt.outcome === 'open' || attempt.outcome === 'uncertain') return undefined;
      // A poll's status, or a completion, written again late by a paused runner changes nothing.
      if (record.type === 'status' && FINISHED.has(attempt.outcome)) return LATE_DUPLICATE;
      if (attempt.outcome === sameOutcome(record)) return LATE_DUPLICATE;
      return `a "${record.type}" record, but ${state}`;
    default:
      return undefined;
  }
}

/** The outcome a record gives its attempt: seen again, it is a copy of what the journal holds. */
function sameOutcome(record: JournalRecord): AttemptState['outcome'] | undefined {
  switch (record.type) {
    case 'completed':
      return 'done';
    case 'failed':
      return record.willRetry ? 'retry' : 'failed';
    case 'deferred':
      return 'deferred';
    default:
      return undefined;
  }
}

function describeOutcome(attempt: AttemptState): string {
  const job = attempt.jobId === undefined ? '' : ` (job ${attempt.jobId})`;
  switch (attempt.outcome) {
    case 'retry':
      return `failed${job}, to be retried in a new attempt`;
    case 'create-refused':
      return 'refused by the service (nothing created)';
    case 'create-failed':
      return 'refused by the service for good (nothing created)';
    case 'creating':
      return 'sent without an answer';
    default:
      return `${attempt.outcome}${job}`;
  }
}

function findAttempt(job: JobState, attempt: number): AttemptState | undefined {
  for (let index = job.attempts.length - 1; index >= 0; index--) {
    const candidate = job.attempts[index];
    if (candidate?.attempt === attempt) return candidate;
  }
  return undefined;
}
