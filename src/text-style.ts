import { styleText } from 'node:util';

/** The few text styles the runner's terminal output uses. */
export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

/**
 * Styles text with Node's own `util.styleText` when `color`, else returns it unchanged. Whether to
 * color is the caller's decision (a TTY, `NO_COLOR`, `--no-color`; see `shouldUseColor`), so the
 * stream check `styleText` makes by itself on newer Node releases is turned off: a report rendered
 * for a terminal is colored even while it is built as a string.
 */
export function createStyle(color: boolean): Style {
  const paint =
    (format: 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan') =>
    (text: string): string =>
      color ? styleText(format, text, { validateStream: false }) : text;
  return {
    bold: paint('bold'),
    dim: paint('dim'),
    red: paint('red'),
    green: paint('green'),
    yellow: paint('yellow'),
    cyan: paint('cyan'),
  };
}
