/**
 * What a terminal shows after `text` was written to it: a small emulator of the VT100 subset a live
 * progress view uses (printing with automatic wrap at `columns`, CR, LF, cursor up/down/to column 1,
 * erase line and erase below; colours and private modes ignored). The screen grows downwards without
 * scrolling, so every row written is kept. Each character takes one column (tests use such text).
 */
export function terminalScreen(text: string, columns: number): string[] {
  const rows: string[][] = [[]];
  let row = 0;
  let column = 0;
  /** After the last column is written, the cursor waits there; the next character wraps. */
  let pendingWrap = false;
  const line = (at: number) => (rows[at] ??= []);
  // eslint-disable-next-line no-control-regex -- escape sequences are what it reads
  const csi = /^\u001b\[(\??)(\d*)(?:;\d*)*([A-Za-z])/;
  let index = 0;
  while (index < text.length) {
    const escape = csi.exec(text.slice(index, index + 16));
    if (escape !== null) {
      index += escape[0].length;
      const [, privateMode, digits, final] = escape;
      if (privateMode === '?') continue;
      const count = digits === '' ? 1 : Number(digits);
      pendingWrap = false;
      if (final === 'A') row = Math.max(0, row - count);
      else if (final === 'B') row += count;
      else if (final === 'G') column = count - 1;
      else if (final === 'K') {
        if (digits === '2') rows[row] = [];
        else line(row).length = Math.min(line(row).length, column);
      } else if (final === 'J') {
        line(row).length = Math.min(line(row).length, column);
        rows.length = row + 1;
      }
      // `m` (colours) and anything else: no change to the text.
      continue;
    }
    const character = String.fromCodePoint(text.codePointAt(index) ?? 0);
    index += character.length;
    if (character === '\n') {
      row++;
      column = 0;
      pendingWrap = false;
      line(row);
    } else if (character === '\r') {
      column = 0;
      pendingWrap = false;
    } else {
      if (pendingWrap) {
        row++;
        column = 0;
        pendingWrap = false;
      }
      const cells = line(row);
      while (cells.length < column) cells.push(' ');
      cells[column] = character;
      if (column === columns - 1) pendingWrap = true;
      else column++;
    }
  }
  const screen = Array.from(rows, (cells) => (cells ?? []).join('').trimEnd());
  while (screen.length > 0 && screen.at(-1) === '') screen.pop();
  return screen;
}
