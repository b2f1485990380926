import { describe, expect, it } from 'vitest';
import { fillStateUrlFromEnv, readStateDir } from '../../../src/cli/run-options.js';

describe('--state, --state-dir and RUNNER_STATE_URL', () => {
  it('reads --state as the database and --state-dir as the folder', () => {
    expect(readStateDir({ state: 'postgres://u@h/db' })).toEqual({ stateUrl: 'postgres://u@h/db' });
    expect(readStateDir({ stateDir: 'x' })).toEqual({ stateDir: 'x' });
    expect(readStateDir({})).toEqual({});
  });

  it('refuses both flags at once', () => {
    expect(() => readStateDir({ state: 'postgres://u@h/db', stateDir: 'x' })).toThrow(
      /--state and --state-dir name two places/,
    );
  });

  it('takes RUNNER_STATE_URL unless a flag says where, on the commands that read state only', () => {
    const env = { RUNNER_STATE_URL: 'postgres://u@h/db' };
    const none: Record<string, unknown> = {};
    fillStateUrlFromEnv('apply', none, env);
    expect(none.state).toBe('postgres://u@h/db');
    const folder: Record<string, unknown> = { stateDir: 'x' };
    fillStateUrlFromEnv('status', folder, env);
    expect(readStateDir(folder)).toEqual({ stateDir: 'x' });
    const flag: Record<string, unknown> = { state: 'postgres://v@h/other' };
    fillStateUrlFromEnv('runs', flag, env);
    expect(flag.state).toBe('postgres://v@h/other');
    const validate: Record<string, unknown> = {};
    fillStateUrlFromEnv('validate', validate, env);
    expect(validate.state).toBeUndefined();
  });
});
