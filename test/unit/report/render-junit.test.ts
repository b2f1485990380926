import { describe, expect, it } from 'vitest';
import { escapeXml, renderJunit } from '../../../src/report/render-junit.js';
import { sampleData } from './fixtures.js';

describe('renderJunit', () => {
  const xml = renderJunit(sampleData(), 12.5);

  it('has one test case per job with totals on the suite', () => {
    expect(xml.match(/<testcase /g)).toHaveLength(6);
    expect(xml).toContain(
      '<testsuite name="p" tests="6" failures="1" errors="0" skipped="4" time="12.500" timestamp="2026-11-23T08:01:00.000Z">',
    );
    expect(xml).toContain('<testcase classname="p" name="ad-latte-watercolor" time="0.002"/>');
  });

  it('times a done job from its first intent to its completion, and a job without both as 0', () => {
    // The fixture's mocha job is sent at DAY and completes at DAY + 5 ms.
    expect(xml).toContain('<testcase classname="p" name="ad-mocha-watercolor" time="0.005">');
    expect(xml).toMatch(/<testcase classname="p" name="rejected" time="0.000">/);
    expect(xml).toMatch(/<testcase classname="p" name="never" time="0.000">/);
  });

  it('reports a failed job as a failure with its failureKind, error and advice', () => {
    const failure =
      /<testcase classname="p" name="rejected"[^>]*>\s*<failure ([^>]*)>([^<]*)<\/failure>/.exec(xml);
    expect(failure?.[1]).toBe('type="CONTENT_REJECTED" message="policy &lt;b&gt;"');
    expect(failure?.[2]).toContain('advice: The prompt is against the content policy: change the prompt.');
    expect(failure?.[2]).toContain('service job id: J3');
  });

  it('skips a done job whose results were not all saved, saying how to fetch them', () => {
    expect(xml).toMatch(
      /name="ad-mocha-watercolor"[^>]*>\s*<skipped message="paid, but 1 of 1 results not saved; `runner apply --download-only` fetches them until 30 Nov 2026, 08:00 UTC"/,
    );
  });

  it('skips deferred, uncertain and unfinished jobs with the reason', () => {
    expect(xml).toMatch(/name="busy"[^>]*>\s*<skipped message="deferred \(QUOTA_EXHAUSTED\): /);
    expect(xml).toMatch(/name="lost"[^>]*>\s*<skipped message="uncertain: the answer was lost\. /);
    expect(xml).toMatch(
      /name="never"[^>]*>\s*<skipped message="not finished \(status pending\); a later apply of this run/,
    );
  });

  it('escapes markup and drops characters XML cannot carry', () => {
    expect(escapeXml('a<b>&"\'\u0001\n')).toBe('a&lt;b&gt;&amp;&quot;&apos;&#10;');
  });
});
