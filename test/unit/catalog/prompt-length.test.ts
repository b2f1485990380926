import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPromptTooShort } from '../../../src/catalog/image-rules.js';

/** The rule as spec 4.3's note words it: fewer than 20 characters or fewer than 4 words. */
const byDefinition = (prompt: string) => {
  const text = prompt.trim();
  return text.length < 20 || text.split(/\s+/).length < 4;
};

describe('isPromptTooShort', () => {
  it('flags fewer than 20 characters or fewer than four words, and nothing else', () => {
    expect(isPromptTooShort('a red fox')).toBe(true);
    expect(isPromptTooShort('  supercalifragilistic expialidocious  ')).toBe(true);
    expect(isPromptTooShort('A red fox at dawn in snow')).toBe(false);
    expect(isPromptTooShort('A\u00a0red\u2028fox\u3000at dawn in the snow')).toBe(false);
  });

  it('agrees with splitting on whitespace, whatever the text', () => {
    const word = fc.stringMatching(/^[a-zé]{1,8}$/);
    const gap = fc.constantFrom(' ', '  ', '\t', '\n', '\u00a0', '\u2028', '\u3000', '\ufeff');
    const prompt = fc
      .array(fc.tuple(word, gap), { maxLength: 8 })
      .chain((parts) => fc.tuple(gap, fc.constant(parts.flat().join('')), gap))
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.oneof(prompt, fc.string()), (text) => isPromptTooShort(text) === byDefinition(text)),
    );
  });
});
