import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { renderReportHtml } from '../../../src/report/render-html.js';
import type { ReportData } from '../../../src/report/report-data.js';
import { sampleData } from './fixtures.js';

/** The JSON data block of a rendered page, parsed as the page's script parses it. */
function pageData(html: string): {
  schemaVersion: number;
  entries: { id: string; prompt?: string; files: { href: string; remote: boolean }[] }[];
} {
  const match = /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(html);
  if (match?.[1] === undefined) throw new Error('no data block');
  return JSON.parse(match[1]) as ReturnType<typeof pageData>;
}

describe('renderReportHtml', () => {
  it('is one self-contained page: no external script, style or font', () => {
    const html = renderReportHtml(sampleData(), '/out');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script[^>]+src=/);
    expect(html).not.toMatch(/<link[^>]+href=/);
    expect(html).not.toMatch(/@import|url\(http/);
    expect(html).toContain("default-src 'none'");
  });

  it('allows only its own script and style, by hash: no inline handler can run', () => {
    const html = renderReportHtml(sampleData(), '/out');
    const csp = /Content-Security-Policy" content="([^"]*)"/.exec(html)?.[1] ?? '';
    expect(csp).not.toContain('unsafe-inline');
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
    const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
    expect(csp).toContain(`script-src ${hash(script)}`);
    expect(csp).toContain(`style-src ${hash(style)}`);
    // The markup around the scripts (the CLI wrote `onsubmit="return false"` once).
    expect(html.split('<script')[0]).not.toMatch(/\son[a-z]+=/i);
  });

  it('gives the page each job’s report status and when a link not downloaded expires', () => {
    const entries = pageData(renderReportHtml(sampleData(), '/out')).entries as unknown as {
      id: string;
      status: string;
      files: { expiresAt?: string }[];
    }[];
    expect(entries.map((entry) => entry.status)).toEqual([
      'done',
      'downloading',
      'failed',
      'deferred',
      'uncertain',
      'pending',
    ]);
    expect(entries[0]?.files[0]?.expiresAt).toBeUndefined();
    expect(entries[1]?.files[0]?.expiresAt).toBe('2026-11-30T08:00:00.005Z');
  });

  it('carries user strings only inside the escaped data block, never as markup', () => {
    const html = renderReportHtml(sampleData(), '/out');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('policy <b>');
    const data = pageData(html);
    expect(data.schemaVersion).toBe(2);
    expect(data.entries.find((entry) => entry.id === 'rejected')?.prompt).toBe(
      '<img src=x onerror=alert(1)>',
    );
  });

  it('says when the run was made as people read it, the exact instant kept in <time datetime>', () => {
    const html = renderReportHtml({ ...sampleData(), generatedAt: '2026-11-27T07:00:17.393Z' }, '/out');
    expect(html).toContain(
      'made <time id="made" datetime="2026-11-27T07:00:17.393Z" title="2026-11-27T07:00:17.393Z">27 Nov 2026, 07:00 UTC</time>',
    );
    // The page's data (which machines and the exported review file read) keeps the ISO form.
    expect(html).toContain('"generatedAt":"2026-11-27T07:00:17.393Z"');
  });

  it('cannot be closed early by a prompt holding </script>', () => {
    const sample = sampleData();
    const data: ReportData = {
      ...sample,
      entries: sample.entries.map((entry) => ({ ...entry, prompt: '</script><script>alert(1)</script>' })),
    };
    data.pipeline = '<b>p</b>';
    const html = renderReportHtml(data, '/out');
    expect(html.match(/<\/script>/g)).toHaveLength(2); // the data block's and the script's own
    expect(html).toContain('<title>&lt;b&gt;p&lt;/b&gt; · run nightly</title>');
    expect(pageData(html).entries[0]?.prompt).toBe('</script><script>alert(1)</script>');
  });

  it('links downloads relative to the page folder, percent-encoded, and the rest by URL', () => {
    const base = sampleData();
    const first = base.entries[0];
    if (first?.files[0] === undefined) throw new Error('fixture');
    first.files[0].path = '/out/with space#1.png';
    const entries = pageData(renderReportHtml(base, '/')).entries;
    expect(entries[0]?.files.map((file) => file.href)).toEqual([
      'out/with%20space%231.png',
      'out/ad-latte-watercolor%2B2.png',
    ]);
    expect(entries[1]?.files[0]).toMatchObject({ href: 'https://r/J2/1.jpeg', remote: true });
  });

  it('renders 5,000 results into one page of reasonable size', () => {
    const base = sampleData();
    const template = base.entries[0];
    if (template === undefined) throw new Error('fixture');
    const entries = Array.from({ length: 5000 }, (_, index) => ({ ...template, id: `job-${index}` }));
    const html = renderReportHtml({ ...base, entries }, '/out');
    expect(pageData(html).entries).toHaveLength(5000);
    expect(html.length).toBeLessThan(5000 * 1500);
  });
});
