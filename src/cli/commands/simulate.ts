import { once } from 'node:events';
import { UsageError } from '../../errors.js';
import type { FaultOptions } from '../../simulator/types.js';
import type { Dialect, HostileOptions } from '../../simulator/types.js';
import { parseNumberOption, parseStringOption } from '../parse/values.js';
import { defineCommand, flag } from './command.js';

const FAULT_NAMES: Record<string, keyof FaultOptions> = {
  '500': 'serverError',
  '429': 'rateLimit',
  reset: 'reset',
  slow: 'slow',
};

/** Parses `500=0.15,429=0.1,reset=0.03,slow=0.05` into fault rates. */
export function parseFaultSpec(spec: string): FaultOptions {
  const faults: FaultOptions = {};
  for (const part of spec
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const [name = '', raw = ''] = part.split('=');
    const key = FAULT_NAMES[name];
    const rate = Number(raw);
    if (key === undefined || !Number.isFinite(rate) || rate < 0 || rate > 1) {
      throw new UsageError(`--faults: cannot read "${part}".`, {
        hint: 'Expected NAME=RATE pairs with NAME one of 500, 429, reset, slow and RATE from 0 to 1, e.g. "500=0.15,429=0.1".',
      });
    }
    faults[key] = rate;
  }
  return faults;
}

/** What `runner simulate` is asked, every value checked. */
interface SimulateOptions {
  port: number;
  timeScale: number;
  seed: number;
  faults: FaultOptions;
  apiKey: string;
  dialect: Dialect;
  hostile: HostileOptions;
  jobListing: boolean;
  echoApiKey: boolean;
  clockOffset: number | undefined;
}

/** `runner simulate`: serves the embedded simulator until Ctrl-C / SIGTERM. */
export const simulateCommand = defineCommand<SimulateOptions>({
  name: 'simulate',
  args: '',
  description: 'Serve the embedded simulator of the service on 127.0.0.1 (for demos and tests)',
  flags: [
    flag('--port <port>', 'Port to listen on (0 = any free port)', { default: 8787 }),
    flag('--time-scale <factor>', 'Multiply every simulated duration (0.01: a 60 s job takes 0.6 s)', {
      default: 1,
    }),
    flag('--seed <n>', 'Seed for fault injection and random choices', { default: 1 }),
    flag('--faults <spec>', 'Fault rates, e.g. "500=0.15,429=0.1,reset=0.03,slow=0.05"'),
    flag('--api-key <key>', 'The API key the simulator accepts', { default: 'sim-key-0000' }),
    flag('--dialect <spec>', 'Answer shapes beyond the spec, e.g. "balance=credits-only,numbersAsStrings"'),
    flag('--hostile <spec>', 'Huge/slow answers, e.g. "errorTextBytes=100000,dripPollMs=500"'),
    flag('--job-listing', 'Serve GET /jobs?since= (not in the spec; without it, 404)'),
    flag('--clock-offset <seconds>', "The service's clock ahead (+) or behind (-) the real time"),
    flag('--echo-api-key', 'Echo the keys in every error text and the API key in result URLs'),
  ],
  globals: [],
  async parse({ flags }) {
    const port = parseNumberOption('port', flags.port, { min: 0, max: 65535, integer: true }) ?? 8787;
    const timeScale = parseNumberOption('time-scale', flags.timeScale, { min: 0.0001, max: 100 }) ?? 1;
    const seed = parseNumberOption('seed', flags.seed, { integer: true }) ?? 1;
    const faults = typeof flags.faults === 'string' ? parseFaultSpec(flags.faults) : {};
    const apiKey = parseStringOption(flags.apiKey) ?? 'sim-key-0000';
    const { parseDialectSpec, parseHostileSpec, describeDialectSpec } =
      await import('../../simulator/dialect.js');
    const dialect = typeof flags.dialect === 'string' ? parseDialectSpec(flags.dialect) : {};
    if (typeof dialect === 'string') {
      throw new UsageError(`--dialect: ${dialect}.`, {
        hint: `Expected a comma list of ${describeDialectSpec()}.`,
      });
    }
    const hostile = typeof flags.hostile === 'string' ? parseHostileSpec(flags.hostile) : {};
    if (typeof hostile === 'string') {
      throw new UsageError(`--hostile: ${hostile}.`, {
        hint: 'Expected NAME=N pairs with NAME one of errorTextBytes, paddingBytes, dripPollMs, dripDownloadMs.',
      });
    }
    const clockOffset = parseNumberOption('clock-offset', flags.clockOffset, { min: -86_400, max: 86_400 });
    return {
      port,
      timeScale,
      seed,
      faults,
      apiKey,
      dialect,
      hostile,
      jobListing: flags.jobListing === true,
      echoApiKey: flags.echoApiKey === true,
      clockOffset,
    };
  },
  async run(ctx, { clockOffset, ...options }) {
    const { startSimulator } = await import('../../simulator/index.js');
    const simulator = await startSimulator({
      ...options,
      ...(clockOffset === undefined ? {} : { clockOffsetMs: clockOffset * 1000 }),
    });
    const { style } = ctx.output;
    const { timeScale, seed, apiKey } = options;
    ctx.output.out(
      `Simulator listening on ${style.bold(simulator.baseUrl)} (time scale ${timeScale}, seed ${seed})`,
    );
    ctx.output.out(
      `Use it with:\n  export MEDIAGEN_BASE_URL=${simulator.baseUrl}\n  export MEDIAGEN_API_KEY=${apiKey}\nStats: ${simulator.baseUrl.replace(/\/api\/v2$/, '')}/__sim/stats   Stop: Ctrl-C`,
    );
    // apply polls at the real service's pace (a first poll after 10 s) unless told the scale (#33.16).
    if (timeScale !== 1)
      ctx.output.out(`Poll at its pace: runner apply FILE ${await timingFlags(timeScale)}`);
    await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
    await simulator.close();
    ctx.output.err('Simulator stopped.');
    return 'done';
  },
});

/** The apply flags that poll a simulator of time scale `timeScale` as `--simulate` polls its own. */
async function timingFlags(timeScale: number): Promise<string> {
  const { scaledTiming } = await import('../../app/apply-options.js');
  const { firstPollMs, pollIntervalMs, jobDeadlineMs } = scaledTiming(timeScale);
  const [low, high] = pollIntervalMs;
  return `--first-poll ${firstPollMs} --poll-interval ${low}-${high} --job-deadline ${Math.max(1, Math.ceil(jobDeadlineMs / 1000))}`;
}
