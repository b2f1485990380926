import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runApply } from '../../src/app/apply.js';
import type { ApplyEffects, ApplySummaryFacts } from '../../src/app/apply-effects.js';
import type { CommandContext } from '../../src/app/context.js';
import type { Output } from '../../src/app/output-sink.js';
import { systemClock } from '../../src/clock.js';
import { ExitCode } from '../../src/errors.js';
import { exitCodeOf } from '../../src/cli/exit-codes.js';
import { parseApplyOptions } from '../../src/cli/parse/apply.js';
import { parsePlanOptions } from '../../src/cli/parse/plan.js';
import { runPlan } from '../../src/app/plan.js';
import type { ExecutionEvent, ExecutionSummary } from '../../src/execute/events.js';
import { createServiceClient } from '../../src/service/client.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { createStyle } from '../../src/text-style.js';

/**
 * Issue 21 item 1: apply's use case (src/app/apply.ts) runs with no terminal at all. Its effects are
 * passed in: the connection (here the real client against the simulator), the clock, the log, the
 * prompt and the views; what it did is read from the simulator's stats and the calls the views got.
 */
describe('apply as a use case, effects passed in', () => {
  let dir: string;
  let sim: Simulator;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-app-apply-'));
    sim = await startSimulator({ timeScale: 0.002 });
    await writeFile(
      join(dir, 'minimal.yaml'),
      'version: 1\nname: minimal\njobs:\n  - id: cover\n    model: chatgpt-image-sangtao\n    prompt: A lighthouse at dawn\n',
    );
  });
  afterEach(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A context whose prompt answers `answer`, and effects that record what the views were given. */
  function harness(answer: boolean) {
    const lines = { out: [] as string[], err: [] as string[] };
    const output: Output = {
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      color: false,
      interactive: false,
      width: Number.POSITIVE_INFINITY,
      out: (text) => lines.out.push(text),
      err: (text) => lines.err.push(text),
      write: (chunk) => {
        lines.out.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
        return Promise.resolve();
      },
      style: createStyle(false),
    };
    const questions: string[] = [];
    const ctx: CommandContext = {
      output,
      env: {},
      cwd: dir,
      global: {},
      canPrompt: true,
      confirm: (question) => {
        questions.push(question);
        return Promise.resolve(answer);
      },
    };
    const seen = {
      watched: [] as string[][],
      events: [] as ExecutionEvent['type'][],
      summaries: [] as { summary: ExecutionSummary; facts: ApplySummaryFacts }[],
    };
    const effects: ApplyEffects = {
      connect: () => {
        const client = createServiceClient({ baseUrl: sim.baseUrl, apiKey: sim.apiKey });
        return Promise.resolve({ client, timeScale: 0.002, close: () => client.close() });
      },
      createLogger: () => ({ info: () => undefined, flush: () => undefined }),
      clock: systemClock,
      view: {
        issues: (issues) => issues.map((issue) => issue.message).join('\n'),
        watch: (_ctx, jobIds) => {
          seen.watched.push([...jobIds]);
          return {
            signal: new AbortController().signal,
            onEvent: (event) => seen.events.push(event.type),
            received: () => undefined,
            finish: () => undefined,
          };
        },
        summary: (summary, facts) => {
          seen.summaries.push({ summary, facts });
          return 'summary';
        },
        unfinishedRuns: () => [],
      },
    };
    const flags = parseApplyOptions({
      stateDir: join(dir, 'state'),
      output: join(dir, 'out'),
      report: false,
    });
    return { ctx, effects, flags, lines, questions, seen };
  }

  it('asks through the injected prompt; declined, it creates nothing and exits 1', async () => {
    const { ctx, effects, flags, lines, questions, seen } = harness(false);
    const code = exitCodeOf(await runApply(ctx, join(dir, 'minimal.yaml'), flags, effects));
    expect(code).toBe(ExitCode.Failure);
    expect(questions).toEqual([expect.stringMatching(/^Apply 1 jobs for up to \d+ credits\?$/)]);
    expect(lines.err).toContain('Nothing was applied.');
    expect(seen.watched).toEqual([]);
    expect(sim.stats().jobsCreated).toBe(0);
    expect(sim.stats().creditsCharged).toBe(0);
  });

  it('confirmed, it runs the plan once, watched by the view, and hands the summary to it', async () => {
    const { ctx, effects, flags, lines, seen } = harness(true);
    const code = exitCodeOf(await runApply(ctx, join(dir, 'minimal.yaml'), flags, effects));
    expect(code).toBe(ExitCode.Success);
    expect(sim.stats().jobsCreated).toBe(1);
    expect(seen.watched).toEqual([['cover']]);
    expect(seen.events).toContain('job-completed');
    expect(seen.summaries).toHaveLength(1);
    expect(seen.summaries[0]!.summary.counts.done).toBe(1);
    expect(seen.summaries[0]!.facts.outputDir).toBe(join(dir, 'out'));
    expect(lines.out).toContain('summary');
  });

  it('applies a saved plan with the options it fixed, and its hints name them as a command line would', async () => {
    const { ctx, effects, seen } = harness(true);
    const manifest = join(dir, 'minimal.yaml');
    const planFile = join(dir, 'plan.json');
    const [state, out] = [join(dir, 'plan-state'), join(dir, 'plan-out')];
    const planned = await runPlan(
      ctx,
      manifest,
      parsePlanOptions({ outPlan: planFile, run: ['n1'], stateDir: state, output: out, maxCredits: '500' }),
      {
        connect: () => effects.connect(ctx, () => undefined, {}),
        view: { issues: () => '', annotations: () => [] },
      },
    );
    expect(planned).toBe('done');
    // The plan fixes the run, the state and download folders and the cap: none is given again.
    const applied = await runApply(ctx, planFile, parseApplyOptions({ report: false }), effects);
    expect(applied).toBe('done');
    expect(sim.stats().jobsCreated).toBe(1);
    expect(seen.summaries[0]!.facts.hints).toEqual({
      again: `runner apply ${planFile}`,
      resend: `runner apply ${manifest} --run n1 --state-dir ${state} --output ${out} --max-credits 500 --resend-uncertain`,
      status: `runner status ${manifest} --run n1 --state-dir ${state}`,
    });
  });
});
