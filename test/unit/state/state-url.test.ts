import { describe, expect, it } from 'vitest';
import { rerunCommand } from '../../../src/app/rerun-command.js';
import { displayStateUrl, parseStateUrl, redactUrls } from '../../../src/state/state-url.js';

const SECRET = 'hunter2';

function refusal(text: string): string {
  try {
    parseStateUrl(text);
  } catch (error) {
    return `${(error as Error).message}\n${(error as { hint?: string }).hint ?? ''}`;
  }
  throw new Error(`${text} was not refused`);
}

describe('state URL passwords (#31.12)', () => {
  it.each([
    ['the user part', `postgres://me:${SECRET}@db.example:5432/runs`, /user part/],
    ['a user part holding @', `postgres://me:pw@${SECRET}@db.example/runs`, /user part/],
    ['?password=', `postgres://me@db.example/runs?password=${SECRET}`, /\?password= parameter/],
    ['?sslpassword=', `postgresql://me@db.example/runs?sslmode=require&sslpassword=${SECRET}`, /sslpassword/],
    [
      'both',
      `postgres://me:${SECRET}@db.example/runs?password=${SECRET}`,
      /user part .* and its \?password=/,
    ],
  ])('refuses a password in %s, naming the way in and never the value', (_, text, where) => {
    const message = refusal(text);
    expect(message).toMatch(/carries a password/);
    expect(message).toMatch(where);
    expect(message).toMatch(/PGPASSWORD/);
    expect(message).toMatch(/\.pgpass/);
    expect(message).not.toContain(SECRET);
  });

  it('shows a URL rebuilt from its parts: user, host, port, database and the other parameters', () => {
    const url = parseStateUrl('postgresql://me@db.example:6543/runs?sslmode=require&application_name=a%20b');
    expect(url.display).toBe('postgresql://me@db.example:6543/runs?sslmode=require&application_name=a+b');
    expect(url.port).toBe(6543);
    expect(parseStateUrl('postgres://db.example/runs').display).toBe('postgres://db.example/runs');
    expect(displayStateUrl('postgres://me@h/db')).toBe('postgres://me@h/db');
  });

  it('an unparseable URL is shown with its passwords blanked, the whole of one holding @', () => {
    expect(redactUrls('at postgres://u:s3cret@h/db now')).toBe('at postgres://u:***@h/db now');
    expect(redactUrls(`postgres://u:a@${SECRET}@h/db`)).toBe('postgres://u:***@h/db');
    expect(redactUrls(`x postgres://u@h/db?sslmode=require&password=${SECRET} y`)).toBe(
      'x postgres://u@h/db?sslmode=require&password=*** y',
    );
    expect(displayStateUrl(`postgres://u:${SECRET}@h:port/db`)).not.toContain(SECRET);
    expect(refusal(`postgres://u:${SECRET}@h:port/db`)).not.toContain(SECRET);
  });

  it('a hint repeats --state as shown, never with a password', () => {
    const hint = rerunCommand('apply', 'm.yaml', { state: `postgres://me@h/db?password=${SECRET}` }, {});
    expect(hint).toBe('runner apply m.yaml --state postgres://me@h/db');
  });
});
