const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * An instant (ISO text, or milliseconds since the epoch) as a person reads it, in UTC: `27 Nov 2026, 07:00 UTC` for `2026-11-27T07:00:17.393Z`.
 * Written out by hand rather than with `toLocaleString`: what the runner writes must not depend on the
 * machine's locale, ICU data or time zone (the report page shows the reader's local time itself).
 * Text that is not a time is returned as it is. Machines read the ISO form: JSON outputs keep it.
 *
 * `seconds` for a time something waits for ("retry after", "not before"): to the minute, a retry at
 * 07:00:30 would be refused although the line said "after 07:00".
 */
export function readableUtcTime(instant: string | number, options: { seconds?: boolean } = {}): string {
  const date = new Date(instant);
  const ms = date.getTime();
  if (Number.isNaN(ms)) return String(instant);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}, ${two(date.getUTCHours())}:${two(date.getUTCMinutes())}${options.seconds === true ? `:${two(date.getUTCSeconds())}` : ''} UTC`;
}
