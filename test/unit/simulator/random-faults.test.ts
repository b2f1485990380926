import { describe, expect, it } from 'vitest';
import { createFaultInjector } from '../../../src/simulator/faults.js';
import { createRandom, hashString, randomHex } from '../../../src/simulator/random.js';

describe('simulator randomness', () => {
  it('replays the same sequence for a seed and differs across seeds', () => {
    const draw = (seed: number) => Array.from({ length: 5 }, createRandom(seed));
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
    for (const n of draw(7)) expect(n >= 0 && n < 1).toBe(true);
  });

  it('hashes strings stably and draws hex of the asked length', () => {
    expect(hashString('job_1')).toBe(hashString('job_1'));
    expect(hashString('job_1')).not.toBe(hashString('job_2'));
    expect(randomHex(createRandom(1), 12)).toMatch(/^[0-9a-f]{12}$/);
  });
});

describe('simulator fault injection', () => {
  const decisions = (seed: number, faults: Parameters<typeof createFaultInjector>[1], n = 200) => {
    const injector = createFaultInjector(seed, faults);
    return Array.from({ length: n }, () => injector.decide(true));
  };

  it('injects nothing without fault options', () => {
    expect(decisions(1, undefined).every((d) => d.kind === null && d.slowMs === 0)).toBe(true);
  });

  it('is deterministic for a seed and roughly honours the probabilities', () => {
    const faults = { serverError: 0.2, rateLimit: 0.1, reset: 0.1, slow: 0.5, slowMs: 30 };
    const a = decisions(9, faults);
    expect(decisions(9, faults)).toEqual(a);
    const count = (kind: string) => a.filter((d) => d.kind === kind).length;
    expect(count('serverError')).toBeGreaterThan(20);
    expect(count('serverError')).toBeLessThan(60);
    expect(count('rateLimit')).toBeGreaterThan(5);
    expect(count('reset')).toBeGreaterThan(5);
    expect(a.filter((d) => d.slowMs === 30).length).toBeGreaterThan(60);
  });

  it('loses about half of the faulted create answers after processing, never for 429', () => {
    const a = decisions(5, { serverError: 0.5, rateLimit: 0.5 });
    const errors = a.filter((d) => d.kind === 'serverError');
    const after = errors.filter((d) => d.afterProcessing).length;
    expect(after).toBeGreaterThan(errors.length * 0.25);
    expect(after).toBeLessThan(errors.length * 0.75);
    expect(a.some((d) => d.kind === 'rateLimit' && d.afterProcessing)).toBe(false);
    const injector = createFaultInjector(5, { serverError: 1 });
    expect(Array.from({ length: 20 }, () => injector.decide(false)).some((d) => d.afterProcessing)).toBe(
      false,
    );
  });
});
