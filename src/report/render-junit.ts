import { piecesOf, type PiecewiseFormat } from './piecewise-text.js';
import {
  reportStatusOf,
  statusesOf,
  type ReportData,
  type ReportEntry,
  type ReportStatus,
} from './report-data.js';
import { readableUtcTime } from '../readable-time.js';

/**
 * The run as JUnit XML for CI test reporters: one `<testcase>` per job of the manifest. A failed job is
 * a `<failure>` (type: its failureKind; text: the error and the advice); a deferred or uncertain job,
 * one not finished in this run, or a done one whose results are not all saved, is `<skipped>` with
 * the reason; a done job passes, its `time` the
 * seconds from its first create to its completion (0 where those are not known). Pure.
 */
export function renderJunit(data: ReportData, durationSeconds = 0): string {
  return [...piecesOf(junitFormat(data, durationSeconds), data.entries)].join('');
}

/**
 * {@link renderJunit} a job at a time. Its head holds the totals, counted from the entries' statuses
 * (`statusesOf`), so the entries themselves are read once, with the other report files.
 */
export function junitFormat(data: ReportData, durationSeconds = 0): PiecewiseFormat<ReportEntry> {
  let failures = 0;
  let skipped = 0;
  for (const status of statusesOf(data.entries)) {
    const outcome = junitOutcome(status);
    if (outcome === 'failure') failures++;
    if (outcome === 'skipped') skipped++;
  }
  const tests = data.entries.length;
  const suite = attributes({
    name: data.pipeline,
    tests,
    failures,
    errors: 0,
    skipped,
    time: durationSeconds.toFixed(3),
    timestamp: data.generatedAt,
  });
  const head = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites ${attributes({ name: `runner ${data.pipeline} ${data.runId}`, tests, failures, errors: 0, skipped })}>`,
    `  <testsuite ${suite}>`,
    `    <properties><property ${attributes({ name: 'runId', value: data.runId })}/></properties>`,
  ].join('\n');
  return {
    head: () => head,
    item: (entry) => `\n${renderCase(data.pipeline, entry, junitOutcome(reportStatusOf(entry)))}`,
    tail: () => '\n  </testsuite>\n</testsuites>\n',
  };
}

type JunitOutcome = 'passed' | 'failure' | 'skipped';

function junitOutcome(status: ReportStatus): JunitOutcome {
  if (status === 'done') return 'passed';
  if (status === 'failed') return 'failure';
  return 'skipped';
}

function renderCase(pipeline: string, entry: ReportEntry, outcome: JunitOutcome): string {
  const time = (entry.seconds ?? 0).toFixed(3);
  const head = `    <testcase ${attributes({ classname: pipeline, name: entry.id, time })}`;
  if (outcome === 'passed') return `${head}/>`;
  if (outcome === 'failure') {
    const type = entry.failureKind ?? 'CREATE_FAILED';
    const message = entry.error ?? type;
    const text = [
      `failureKind: ${type}`,
      `error: ${message}`,
      ...(entry.advice === undefined ? [] : [`advice: ${entry.advice}`]),
      ...(entry.serviceJobId === undefined ? [] : [`service job id: ${entry.serviceJobId}`]),
      ...(entry.machine === undefined ? [] : [`machine: ${entry.machine}`]),
      `attempts: ${entry.attempts}`,
    ].join('\n');
    return `${head}>\n      <failure ${attributes({ type, message })}>${escapeXml(text)}</failure>\n    </testcase>`;
  }
  const unsaved = entry.files.filter((file) => file.path === undefined);
  const expiry = unsaved[0]?.urlExpiresAt;
  const reason =
    entry.status === 'done'
      ? `paid, but ${unsaved.length} of ${entry.files.length} results not saved; \`runner apply --download-only\` fetches them${expiry === undefined ? '' : ` until ${readableUtcTime(expiry)}`}`
      : entry.status === 'deferred'
        ? `deferred (${entry.failureKind ?? 'temporary failure'}): ${entry.advice ?? 'a later apply retries it'}`
        : entry.status === 'uncertain'
          ? `uncertain: ${entry.error ?? 'the create answer was lost'}. ${entry.advice ?? ''}`.trim()
          : `not finished (status ${entry.status}); a later apply of this run continues it`;
  return `${head}>\n      <skipped ${attributes({ message: reason })}/>\n    </testcase>`;
}

function attributes(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([name, value]) => `${name}="${escapeXml(String(value))}"`)
    .join(' ');
}

/** XML 1.0 text and attribute escaping; characters XML cannot carry at all are dropped. */
export function escapeXml(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replaceAll('&', '&amp;')
      .replaceAll('<', '&lt;')
      .replaceAll('>', '&gt;')
      .replaceAll('"', '&quot;')
      .replaceAll("'", '&apos;')
      .replaceAll('\n', '&#10;')
  );
}
