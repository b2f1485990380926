import { describe, expect, it } from 'vitest';
import { createLineWindow } from '../../../src/state/line-window.js';

/** Feeds `text` through a window of `size` bytes, `step` bytes a read; returns what it handed on. */
function feed(text: string, size: number, step: number): string[] {
  const bytes = Buffer.from(text);
  const window = createLineWindow(size);
  const out: string[] = [];
  let position = 0;
  for (;;) {
    const { buffer, offset, length } = window.target();
    const read = Math.min(length, step, bytes.length - position);
    if (read === 0) {
      const rest = window.rest();
      if (rest !== undefined) out.push(rest.toString());
      return out;
    }
    bytes.copy(buffer, offset, position, position + read);
    position += read;
    const lines = window.lines(read);
    if (lines !== undefined) out.push(lines.toString());
  }
}

describe('createLineWindow', () => {
  it('hands on whole lines, a line read in part completed by the next read, the last without newline at the end', () => {
    expect(feed('ab\ncd\nef', 4, 4)).toEqual(['ab\n', 'cd\n', 'ef']);
    expect(feed('a\nb\nc\n', 16, 3)).toEqual(['a\n', 'b\nc\n']);
  });

  it('grows its buffer for a line longer than it', () => {
    const long = 'x'.repeat(20);
    expect(feed(`${long}\nyz\n`, 4, 3).join('')).toBe(`${long}\nyz\n`);
    expect(feed(`${long}\nyz\n`, 4, 3)[0]).toBe(`${long}\n`);
  });
});
