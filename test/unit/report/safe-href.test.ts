import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REPORT_PAGE_SCRIPT } from '../../../src/generated/report-page.js';

/** The page's own `safeHref`, taken from the script the report embeds. */
function loadSafeHref(): (href: string) => string {
  const source = /function safeHref\(href\) \{[\s\S]*?\n\}/.exec(REPORT_PAGE_SCRIPT)?.[0];
  if (source === undefined) throw new Error('safeHref not found in the page script');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const make = new Function(`${source}\nreturn safeHref;`) as () => (href: string) => string;
  return make();
}

/** The scheme a browser gives a link set to `href` on a report opened from disk. */
const schemeOf = (href: string) => new URL(href, 'file:///tmp/out/report.html').protocol;
const SAFE = ['file:', 'http:', 'https:'];

describe("the report page's link filter (issue #32.8)", () => {
  const safeHref = loadSafeHref();

  it.each([
    ' javascript:alert(1)',
    '\tjava\nscript:alert(1)',
    '\u0001javascript:alert(1)',
    '\u0000 \u001fjavascript:alert(1)',
    'java\rscript:alert(1)',
    'JaVaScRiPt:alert(1)',
    ' data:text/html,<script>alert(1)</script>',
    'vb\tscript:msgbox(1)',
  ])('lets no script scheme through: %j', (href) => {
    expect(SAFE).not.toContain(schemeOf(href));
    expect(SAFE).toContain(schemeOf(safeHref(href)));
  });

  it('keeps relative paths and http(s) links as they are', () => {
    for (const href of ['shot%201/1.png', 'https://cdn.example/r/1.png', 'http://127.0.0.1:9/a.png'])
      expect(safeHref(href)).toBe(href);
  });

  it('never yields a scheme other than file (relative), http or https, whatever is around it', () => {
    const noise = fc.constantFrom('\t', '\n', '\r', ' ', '\u0000', '\u0008', '\u001f', '');
    fc.assert(
      fc.property(
        fc.array(noise, { maxLength: 4 }),
        fc.constantFrom('javascript', 'data', 'vbscript', 'JAVASCRIPT'),
        fc.array(fc.tuple(fc.nat(12), noise), { maxLength: 4 }),
        (before, scheme, inserts) => {
          let word = scheme;
          for (const [at, char] of inserts)
            if (char === '\t' || char === '\n' || char === '\r')
              word = word.slice(0, at) + char + word.slice(at);
          const href = `${before.join('')}${word}:alert(1)`;
          expect(SAFE).toContain(schemeOf(safeHref(href)));
        },
      ),
    );
  });
});
