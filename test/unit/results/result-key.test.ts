import { describe, expect, it } from 'vitest';
import {
  checkResultKey,
  isResultKey,
  joinKey,
  keyFolder,
  keyName,
  keyOfRecordedFile,
} from '../../../src/results/result-key.js';

describe('result keys', () => {
  it('takes the keys the runner makes', () => {
    for (const key of ['hero.png', '.superseded/attempt-1/hero.png', 'thumbnails/ab12.webp', 'a..b.png']) {
      expect(checkResultKey(key)).toBe(key);
    }
  });

  it('refuses a key that could leave the output root', () => {
    for (const key of [
      '',
      '/etc/passwd',
      '../x.png',
      'a/../../x',
      'a//b',
      './a',
      'a/',
      'a\\b',
      'C:x',
      'a\0b',
    ]) {
      expect(isResultKey(key), key).toBe(false);
      expect(() => checkResultKey(key)).toThrow(/Refused the result key/);
    }
  });

  it('splits and joins', () => {
    expect(joinKey('.superseded', 'attempt-2', 'x.png')).toBe('.superseded/attempt-2/x.png');
    expect(joinKey('', 'x.png')).toBe('x.png');
    expect(keyFolder('.superseded/attempt-2/x.png')).toBe('.superseded/attempt-2');
    expect(keyFolder('x.png')).toBe('');
    expect(keyName('.superseded/attempt-2/x.png')).toBe('x.png');
  });

  it('maps a journal of an earlier release (absolute paths) to keys under the recorded folder', () => {
    expect(keyOfRecordedFile('/home/a/out/hero.png', '/home/a/out')).toBe('hero.png');
    expect(keyOfRecordedFile('/home/a/out/.superseded/attempt-1/hero.png', '/home/a/out')).toBe(
      '.superseded/attempt-1/hero.png',
    );
    // A file outside the recorded folder (the folder changed between applies): its name.
    expect(keyOfRecordedFile('/elsewhere/hero.png', '/home/a/out')).toBe('hero.png');
    expect(keyOfRecordedFile('/elsewhere/hero.png', undefined)).toBe('hero.png');
    expect(keyOfRecordedFile('/home/a/out/..b.png', '/home/a/out')).toBe('..b.png');
  });

  it('keeps a key as recorded', () => {
    expect(keyOfRecordedFile('hero.png', '/home/a/out')).toBe('hero.png');
    expect(keyOfRecordedFile('thumbnails/x.webp', undefined)).toBe('thumbnails/x.webp');
  });
});
