/**
 * Every string the runner keeps or prints from the service is capped (issue #11): a hostile or broken
 * answer must not fill the journal, the terminal or the memory with one field.
 */

/** 2 KB: a long failure message fits; a dumped HTML page or a megabyte of padding does not. */
export const MAX_SERVICE_TEXT = 2048;

/** `text` cut to `max` characters with a note saying how much was cut. */
export function capText(text: string, max = MAX_SERVICE_TEXT): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… [${text.length - max} more characters cut]`;
}
