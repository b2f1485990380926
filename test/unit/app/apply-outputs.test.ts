import { describe, expect, it } from 'vitest';
import { resolveReportFile } from '../../../src/app/apply-options.js';
import { parseApplyOptions } from '../../../src/cli/parse/apply.js';

describe('resolveReportFile', () => {
  const where = { manifestDir: '/m', resultsDir: '/m/runner-output/p' };
  const ctx = { cwd: '/work' };

  it('defaults to report.html in the download folder', () => {
    expect(resolveReportFile(ctx, parseApplyOptions({ report: true }), {}, where)).toBe(
      '/m/runner-output/p/report.html',
    );
    expect(resolveReportFile(ctx, parseApplyOptions({}), {}, where)).toBe('/m/runner-output/p/report.html');
  });

  it('follows manifest `report:`: false turns it off, a path is relative to the manifest', () => {
    expect(
      resolveReportFile(ctx, parseApplyOptions({ report: true }), { report: false }, where),
    ).toBeUndefined();
    expect(
      resolveReportFile(ctx, parseApplyOptions({ report: true }), { report: 'pages/r.html' }, where),
    ).toBe('/m/pages/r.html');
    expect(
      resolveReportFile(ctx, parseApplyOptions({ report: true }), { report: '/abs/r.html' }, where),
    ).toBe('/abs/r.html');
    expect(resolveReportFile(ctx, parseApplyOptions({ report: true }), { report: true }, where)).toBe(
      '/m/runner-output/p/report.html',
    );
  });

  it('lets the flags win: --no-report, --report FILE relative to the working folder', () => {
    expect(
      resolveReportFile(ctx, parseApplyOptions({ report: false }), { report: 'pages/r.html' }, where),
    ).toBeUndefined();
    expect(
      resolveReportFile(ctx, parseApplyOptions({ report: 'out/r.html' }), { report: false }, where),
    ).toBe('/work/out/r.html');
  });
});
