import { describe, expect, it } from 'vitest';
import { normalizeRemote, readOriginUrl, refuseOtherProject } from '../../../src/app/run-project.js';

describe('project identity (#31.13)', () => {
  it.each([
    'git@github.com:team-a/images.git',
    'https://github.com/team-a/images',
    'https://user@GitHub.com/team-a/images.git/',
    'ssh://git@github.com:22/team-a/images.git',
  ])('normalizes %s to host/owner/repo', (remote) => {
    expect(normalizeRemote(remote)).toBe('github.com/team-a/images');
  });

  it("reads origin's url, not another remote's", () => {
    const config = '[remote "fork"]\n\turl = git@x:me/r.git\n[remote "origin"]\n\turl = git@y:team/r.git\n';
    expect(readOriginUrl(config)).toBe('git@y:team/r.git');
    expect(readOriginUrl('[core]\n\tbare = false\n')).toBeUndefined();
  });

  it('refuses another project, not a run recorded without one', () => {
    const record = (project?: string) =>
      ({
        type: 'run',
        at: 0,
        runId: 'r',
        pipeline: 'p',
        pid: 1,
        manifestFile: 'm',
        ...(project ? { project } : {}),
      }) as const;
    const run = { pipeline: 'p', runId: 'r', where: 'db' };
    expect(() => refuseOtherProject([record()], 'b', run)).not.toThrow();
    expect(() => refuseOtherProject([record('a')], 'a', run)).not.toThrow();
    expect(() => refuseOtherProject([record('a')], undefined, run)).not.toThrow();
    expect(() => refuseOtherProject([record('a'), record()], 'b', run)).toThrow(
      /belongs to project "a".*this manifest is of project "b"/,
    );
  });
});
