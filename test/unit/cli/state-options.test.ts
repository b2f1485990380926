import { describe, expect, it } from 'vitest';
import { applyEnvDefaults } from '../../../src/cli/parse/env-defaults.js';
import { readStateDir } from '../../../src/cli/parse/common.js';

const takes = new Set(['state', 'state-dir']);
const filled = (options: Record<string, unknown>, env: NodeJS.ProcessEnv) => {
  applyEnvDefaults(options, { takes, env, simulate: false });
  return readStateDir(options);
};

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

  it('takes RUNNER_STATE_URL unless a flag says where; a flag for one with the variable of the other is refused (#31.2)', () => {
    const url = 'postgres://u@h/db';
    expect(filled({}, { RUNNER_STATE_URL: url })).toEqual({ stateUrl: url });
    expect(() => filled({ stateDir: 'x' }, { RUNNER_STATE_URL: url })).toThrow(
      /--state-dir and RUNNER_STATE_URL name two places/,
    );
    expect(filled({ state: 'postgres://v@h/o' }, { RUNNER_STATE_URL: url })).toEqual({
      stateUrl: 'postgres://v@h/o',
    });
    expect(() => filled({ state: url }, { RUNNER_STATE_DIR: 'dir' })).toThrow(
      /--state and RUNNER_STATE_DIR name two places/,
    );
    expect(filled({}, { RUNNER_STATE_URL: url, RUNNER_STATE_DIR: 'dir' })).toEqual({ stateUrl: url });
    // `state push --state-dir DIR` moves a folder's run into RUNNER_STATE_URL's database (read there).
    const push: Record<string, unknown> = { stateDir: 'x' };
    applyEnvDefaults(push, { takes, env: { RUNNER_STATE_URL: url }, simulate: false, bothPlaces: true });
    expect(push).toEqual({ stateDir: 'x' });
    const validate: Record<string, unknown> = {};
    applyEnvDefaults(validate, { takes: new Set(), env: { RUNNER_STATE_URL: url }, simulate: false });
    expect(validate.state).toBeUndefined();
  });
});
