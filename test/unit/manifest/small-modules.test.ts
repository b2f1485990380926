import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findUnsafeIdReason } from '../../../src/manifest/check-job-id.js';
import { decodeUtf8, findInvalidUtf8 } from '../../../src/manifest/decode-utf8.js';
import { formatIssue } from '../../../src/manifest/format-issue.js';
import { sortIssues } from '../../../src/manifest/sort-issues.js';
import { didYouMean } from '../../../src/suggest.js';
import type { ValidationIssue } from '../../../src/manifest/types.js';
import { formatYamlPath, parseInstancePath } from '../../../src/manifest/yaml-path.js';

describe('formatIssue', () => {
  it('prints location, severity, job, code, message and an indented hint', () => {
    const issue: ValidationIssue = {
      severity: 'error',
      code: 'unknown-param',
      message: 'model m has no param "dpi"',
      jobId: 'hero-latte',
      location: { file: 'pipeline.yaml', line: 12, col: 7 },
      hint: 'did you mean "dpi2"?',
    };
    expect(formatIssue(issue)).toBe(
      'pipeline.yaml:12:7 error [hero-latte] unknown-param: model m has no param "dpi"\n  hint: did you mean "dpi2"?',
    );
    expect(formatIssue({ severity: 'warning', code: 'x', message: 'y' })).toBe('warning x: y');
  });
});

describe('sortIssues', () => {
  it('puts unlocated issues first, then orders by file, line and column, stably', () => {
    const at = (line: number, col: number, code: string): ValidationIssue => ({
      severity: 'error',
      code,
      message: '',
      location: { file: 'a.yaml', line, col },
    });
    const sorted = sortIssues([
      at(3, 1, 'c'),
      at(1, 5, 'b'),
      { severity: 'error', code: 'a', message: '' },
      at(1, 5, 'b2'),
      at(1, 2, 'a2'),
    ]);
    expect(sorted.map((issue) => issue.code)).toEqual(['a', 'a2', 'b', 'b2', 'c']);
  });
});

describe('decodeUtf8', () => {
  it('finds the same first invalid byte as a strict decoder would reject', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        const offset = findInvalidUtf8(bytes);
        let strictOk = true;
        try {
          new TextDecoder('utf-8', { fatal: true }).decode(bytes);
        } catch {
          strictOk = false;
        }
        expect(offset === bytes.length).toBe(strictOk);
        if (!strictOk) {
          expect(() =>
            new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, offset)),
          ).not.toThrow();
        }
      }),
    );
  });

  it('names line and byte column of the bad byte', () => {
    expect(decodeUtf8(Buffer.from([0x61, 0x0a, 0x62, 0xc3, 0x28]))).toEqual({
      ok: false,
      offset: 3,
      byte: 0xc3,
      line: 2,
      col: 2,
    });
    expect(decodeUtf8(Buffer.from('é ok'))).toEqual({ ok: true, text: 'é ok' });
  });
});

describe('findUnsafeIdReason', () => {
  it.each([
    ['hero-latte', undefined],
    ['cold brew 16:9', undefined],
    ['', 'it is empty'],
    ['a/b', "it contains a path separator ('/' or '\\')"],
    ['a\\b', "it contains a path separator ('/' or '\\')"],
    ['a..b', "it contains '..'"],
    ['.', "it is '.'"],
    ['a\u0000b', 'it contains a control character'],
    ['x'.repeat(201), 'it is 201 characters long; the maximum is 200'],
  ])('%j → %s', (id, reason) => {
    expect(findUnsafeIdReason(id)).toBe(reason);
  });
});

describe('paths and suggestions', () => {
  it('formats and parses YAML paths', () => {
    expect(formatYamlPath(['jobs', 0, 'params', 'a b'])).toBe('jobs[0].params["a b"]');
    expect(formatYamlPath([])).toBe('(top level)');
    expect(parseInstancePath('/jobs/0/params/a~1b~0c')).toEqual(['jobs', 0, 'params', 'a/b~c']);
    expect(parseInstancePath('')).toEqual([]);
  });

  it('suggests only plausible typos', () => {
    expect(didYouMean('promt', ['prompt', 'params'])).toBe('did you mean "prompt"?');
    expect(didYouMean('Model', ['model'])).toBe('did you mean "model"?');
    expect(didYouMean('imgae', ['image', 'render-video'])).toBe('did you mean "image"?');
    expect(didYouMean('xyz', ['prompt', 'params'])).toBeUndefined();
    expect(didYouMean('ab', ['id'])).toBeUndefined();
  });
});
