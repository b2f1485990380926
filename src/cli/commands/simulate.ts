import { once } from 'node:events';
import { UsageError } from '../../errors.js';
import type { FaultOptions } from '../../simulator/types.js';
import type { CommandContext } from '../../app/context.js';
import type { Outcome } from '../../app/outcome.js';
import { scaledTiming } from '../../app/apply-options.js';
import { parseNumberOption, parseStringOption } from '../parse/values.js';

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

/** The apply flags that poll a simulator of time scale `timeScale` as `--simulate` polls its own. */
export function timingFlags(timeScale: number): string {
  const { firstPollMs, pollIntervalMs, jobDeadlineMs } = scaledTiming(timeScale);
  const [low, high] = pollIntervalMs;
  return `--first-poll ${firstPollMs} --poll-interval ${low}-${high} --job-deadline ${Math.max(1, Math.ceil(jobDeadlineMs / 1000))}`;
}

export async function runSimulate(
  ctx: CommandContext,
  _args: string[],
  options: Record<string, unknown>,
): Promise<Outcome> {
  const { startSimulator, parseDialectSpec, parseHostileSpec, describeDialectSpec } =
    await import('../../simulator/index.js');
  const port = parseNumberOption('port', options.port, { min: 0, max: 65535, integer: true }) ?? 8787;
  const timeScale = parseNumberOption('time-scale', options.timeScale, { min: 0.0001, max: 100 }) ?? 1;
  const seed = parseNumberOption('seed', options.seed, { integer: true }) ?? 1;
  const faults = typeof options.faults === 'string' ? parseFaultSpec(options.faults) : {};
  const apiKey = parseStringOption(options.apiKey) ?? 'sim-key-0000';
  const dialect = typeof options.dialect === 'string' ? parseDialectSpec(options.dialect) : {};
  if (typeof dialect === 'string') {
    throw new UsageError(`--dialect: ${dialect}.`, {
      hint: `Expected a comma list of ${describeDialectSpec()}.`,
    });
  }
  const hostile = typeof options.hostile === 'string' ? parseHostileSpec(options.hostile) : {};
  if (typeof hostile === 'string') {
    throw new UsageError(`--hostile: ${hostile}.`, {
      hint: 'Expected NAME=N pairs with NAME one of errorTextBytes, paddingBytes, dripPollMs, dripDownloadMs.',
    });
  }
  const clockOffset = parseNumberOption('clock-offset', options.clockOffset, { min: -86_400, max: 86_400 });
  const simulator = await startSimulator({
    port,
    timeScale,
    seed,
    faults,
    apiKey,
    dialect,
    hostile,
    jobListing: options.jobListing === true,
    echoApiKey: options.echoApiKey === true,
    ...(clockOffset === undefined ? {} : { clockOffsetMs: clockOffset * 1000 }),
  });
  const { style } = ctx.output;
  ctx.output.out(
    `Simulator listening on ${style.bold(simulator.baseUrl)} (time scale ${timeScale}, seed ${seed})`,
  );
  ctx.output.out(
    `Use it with:\n  export MEDIAGEN_BASE_URL=${simulator.baseUrl}\n  export MEDIAGEN_API_KEY=${apiKey}\nStats: ${simulator.baseUrl.replace(/\/api\/v2$/, '')}/__sim/stats   Stop: Ctrl-C`,
  );
  // apply polls at the real service's pace (a first poll after 10 s) unless told the scale (#33.16).
  if (timeScale !== 1) ctx.output.out(`Poll at its pace: runner apply FILE ${timingFlags(timeScale)}`);
  await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')]);
  await simulator.close();
  ctx.output.err('Simulator stopped.');
  return 'done';
}
