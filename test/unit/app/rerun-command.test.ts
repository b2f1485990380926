import { describe, expect, it } from 'vitest';
import { rerunCommand, shellQuote } from '../../../src/app/rerun-command.js';
import { readRepeatedFlags } from '../../../src/cli/parse/common.js';

describe('rerunCommand (#20.3)', () => {
  // cac's flags as given: the hint reads the repeated ones (readRepeatedFlags), never the others.
  const options = readRepeatedFlags({
    run: ['night1'],
    stateDir: 'cache state',
    output: 'out-n1',
    var: ['brand=Zeta Corp', "who=O'Brien"],
    only: ['img-*'],
    replace: ['img-fox'],
    retryFailed: true,
    maxCredits: '50',
    yes: true,
    concurrency: '2',
  });

  it('repeats what locates the run and shapes its jobs, shell-quoted, and nothing that pays again', () => {
    expect(rerunCommand('apply', 'm.yaml', options, {})).toBe(
      "runner apply m.yaml --run night1 --state-dir 'cache state' --output out-n1 --var 'brand=Zeta Corp' --var 'who=O'\\''Brien' --only 'img-*' --max-credits 50",
    );
  });

  it('adds how the service was reached for apply, and the extra flags last', () => {
    expect(
      rerunCommand(
        'apply',
        'm.yaml',
        { stateDir: 's' },
        { simulate: true, baseUrl: 'http://127.0.0.1:1/api/v2' },
        ['--resend-uncertain'],
      ),
    ).toBe(
      'runner apply m.yaml --state-dir s --simulate --base-url http://127.0.0.1:1/api/v2 --resend-uncertain',
    );
  });

  it('gives each command only the flags it takes; the default run is left out', () => {
    expect(rerunCommand('status', 'm.yaml', { ...options, run: 'default' }, { simulate: true })).toBe(
      "runner status m.yaml --state-dir 'cache state' --var 'brand=Zeta Corp' --var 'who=O'\\''Brien'",
    );
    expect(rerunCommand('runs', 'dir with space/m.yaml', options, {})).toBe(
      "runner runs 'dir with space/m.yaml' --state-dir 'cache state'",
    );
  });

  it('quotes only what a shell would change', () => {
    expect(shellQuote('a/b-c_d.e:f=g,h@i%j+k')).toBe('a/b-c_d.e:f=g,h@i%j+k');
    expect(shellQuote('')).toBe("''");
    expect(shellQuote('$HOME')).toBe("'$HOME'");
    expect(shellQuote('a b')).toBe("'a b'");
  });
});
