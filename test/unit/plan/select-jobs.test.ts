import { describe, expect, it } from 'vitest';
import { globToRegExp, selectJobs } from '../../../src/plan/select-jobs.js';

const jobs = ['hero-latte-watercolor', 'hero-latte-film', 'hero-mocha-film', 'promo', 'promo.v2'].map(
  (id) => ({ id }),
);
const none = { only: [], exclude: [], replace: [] };

describe('globToRegExp', () => {
  it('supports * and ? and takes every other character literally, anchored', () => {
    expect(globToRegExp('hero-*').test('hero-latte')).toBe(true);
    expect(globToRegExp('hero-*').test('x-hero-latte')).toBe(false);
    expect(globToRegExp('promo.v?').test('promo.v2')).toBe(true);
    expect(globToRegExp('promo.v?').test('promoXv2')).toBe(false);
    expect(globToRegExp('a**b').test('a/x/b')).toBe(true);
    expect(globToRegExp('(x)[1]').test('(x)[1]')).toBe(true);
  });
});

describe('selectJobs', () => {
  it('keeps every job without flags', () => {
    expect(selectJobs(jobs, none)).toEqual({ selected: jobs, leftOut: [], problems: [] });
  });

  it('applies --only then --exclude, and lists what was left out in order', () => {
    const result = selectJobs(jobs, { ...none, only: ['hero-*', 'promo'], exclude: ['*-film'] });
    expect(result.selected.map((job) => job.id)).toEqual(['hero-latte-watercolor', 'promo']);
    expect(result.leftOut).toEqual(['hero-latte-film', 'hero-mocha-film', 'promo.v2']);
    expect(result.problems).toEqual([]);
  });

  it('reports every pattern that matches nothing and every --replace id outside the selection', () => {
    const result = selectJobs(jobs, {
      only: ['hero-*', 'nope-*'],
      exclude: ['promo.v3'],
      replace: ['hero-latte-film', 'promo', 'promo.v9'],
    });
    expect(result.problems).toEqual([
      '--only "nope-*" matches no job of the manifest',
      '--exclude "promo.v3" matches no job of the manifest; did you mean "promo.v2"?',
      '--replace "promo" names a job that --only/--exclude leave out',
      '--replace "promo.v9" names no job of the manifest; did you mean "promo.v2"?',
    ]);
  });
});
