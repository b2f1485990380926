import { cac } from 'cac';
import { describe, expect, it } from 'vitest';
import {
  checkWrittenFlags,
  joinNegativeValues,
  keepValuesAsWritten,
  readWrittenValues,
  tidyHelpOptions,
} from '../../../src/cli/cac-adapter.js';

/**
 * What cac does by itself, for each workaround of src/cli/cac-adapter.ts. When one of these fails
 * after a cac upgrade, cac no longer needs that workaround: delete it (and this case) and let cac do
 * it. The adapter's own behaviour is checked beside each case and in option-rules / option-values.
 */
function parse(argv: string[]): { options: Record<string, unknown>; error?: string } {
  const cli = cac('runner');
  cli
    .command('apply <manifest>')
    .option('--run <id>', 'Run id', { type: [String] })
    .option('--state-dir <dir>', 'State folder')
    .option('--max-credits <n>', 'Cap')
    .option('--no-download', 'No downloads')
    .action(() => undefined);
  const { options } = cli.parse(['node', 'runner', 'apply', 'm.yaml', ...argv], { run: false });
  try {
    cli.runMatchedCommand();
    return { options };
  } catch (error) {
    return { options, error: (error as Error).message };
  }
}

describe('cac 7.1 still needs src/cli/cac-adapter.ts', () => {
  it('reads numeric-looking values as numbers, `type: [String]` included (readWrittenValues)', () => {
    expect(parse(['--run', '007', '--state-dir', '007']).options).toMatchObject({ run: ['7'], stateDir: 7 });
    const declared = [
      { rawName: '--run <id>', config: { type: [String] } },
      { rawName: '--state-dir <dir>' },
    ];
    const parsed: Record<string, unknown> = { run: ['7'], stateDir: 7 };
    keepValuesAsWritten(
      parsed,
      readWrittenValues(['--run', '007', '--state-dir', '007'], declared),
      declared,
    );
    expect(parsed).toEqual({ run: ['007'], stateDir: '007' });
  });

  it('turns an empty value into 0 and a missing one into true (readWrittenValues refuses both)', () => {
    expect(parse(['--run', '']).options.run).toEqual(['0']);
    expect(parse(['--run']).options.run).toEqual(['true']);
    const declared = [{ rawName: '--run <id>' }];
    expect(() => readWrittenValues(['--run', ''], declared)).toThrow('--run expects a value');
    expect(() => readWrittenValues(['--run'], declared)).toThrow('--run expects a value; none was given.');
  });

  it('reads a negative value as flags (joinNegativeValues)', () => {
    const { options, error } = parse(['--max-credits', '-5']);
    expect(options.maxCredits).toBe(true);
    expect(error).toBe('Unknown option `-5`');
    expect(joinNegativeValues(['--max-credits', '-5'], [{ rawName: '--max-credits <n>' }])).toEqual([
      '--max-credits=-5',
    ]);
  });

  it('names an unknown flag by its camelCased key, with no suggestion (checkWrittenFlags)', () => {
    expect(parse(['--state-dri', 'x']).error).toBe('Unknown option `--stateDri`');
    const check = () =>
      checkWrittenFlags({
        command: 'apply',
        argv: ['--state-dri', 'x'],
        commandOptions: [{ rawName: '--state-dir <dir>' }],
        globalOptions: [],
      });
    expect(check).toThrow('Unknown option `--state-dri` for `runner apply`.');
  });

  it('shows "(default: true)" on a negated flag in the help (tidyHelpOptions)', () => {
    const cli = cac('runner');
    cli.command('apply').option('--no-download', 'Record URLs');
    cli.help((sections) => {
      const options = sections.find((section) => section.title === 'Options')?.body ?? '';
      expect(options).toMatch(/--no-download\s+Record URLs \(default: true\)/);
      expect(tidyHelpOptions(undefined, options)).not.toContain('(default: true)');
      return [];
    });
    const info = console.info;
    console.info = () => undefined;
    try {
      cli.parse(['node', 'runner', 'apply', '--help'], { run: false });
    } finally {
      console.info = info;
    }
    expect.assertions(2);
  });
});
