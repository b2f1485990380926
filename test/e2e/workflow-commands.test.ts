import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

/**
 * The GitHub Action (action.yml) and the documented workflows (docs/github-nightly.yml,
 * docs/github-pr-cost.yml) call the CLI; every command and flag they use must exist in the built CLI,
 * and every input they pass must be declared, or the night fails at 2 a.m. instead of in this test.
 */
const WORKFLOWS = ['docs/github-nightly.yml', 'docs/github-pr-cost.yml'];
const root = fileURLToPath(new URL('../../', import.meta.url));

interface Step {
  run?: string;
  uses?: string;
  with?: Record<string, unknown>;
}

/** Each runner invocation in a shell script: its command and the flags it passes. */
function findInvocations(script: string): { command: string; flags: string[] }[] {
  const joined = script.replace(/\\\n\s*/g, ' ');
  const found: { command: string; flags: string[] }[] = [];
  for (const line of joined.split('\n')) {
    const match = /(?:\$RUNNER|npx --no-install runner)\s+([a-z]+)(.*)$/.exec(line);
    if (match === null) continue;
    const flags = [...(match[2] ?? '').matchAll(/(?<![\w-])(--[a-z][a-z-]*)/g)].map((flag) => flag[1] ?? '');
    found.push({ command: match[1] ?? '', flags });
  }
  return found;
}

async function readSteps(file: string): Promise<{ doc: Record<string, unknown>; steps: Step[] }> {
  const doc = parse(await readFile(root + file, 'utf8')) as Record<string, unknown>;
  const runs = doc.runs as { steps?: Step[] } | undefined;
  const jobs = doc.jobs as Record<string, { steps: Step[] }> | undefined;
  const steps = runs?.steps ?? Object.values(jobs ?? {}).flatMap((job) => job.steps);
  return { doc, steps };
}

describe('the GitHub Action and the nightly workflow', () => {
  const help = new Map<string, string>();
  const invocations: { file: string; command: string; flags: string[] }[] = [];

  beforeAll(async () => {
    for (const file of ['action.yml', ...WORKFLOWS]) {
      const { steps } = await readSteps(file);
      for (const step of steps) {
        for (const call of findInvocations(step.run ?? '')) invocations.push({ file, ...call });
      }
    }
    for (const command of new Set(invocations.map((call) => call.command))) {
      const result = await runCli([command, '--help']);
      help.set(command, result.stdout);
    }
  });

  it('call the runner commands a night and a pull request need', () => {
    // The workflows run none themselves: the action validates (strict: 'true'), plans, applies and prunes; with
    // `command: pr-cost` it fetches the catalog (with a key), plans both sides, diffs and comments.
    expect(invocations.map((call) => `${call.file}: ${call.command}`)).toEqual([
      'action.yml: validate',
      'action.yml: plan',
      'action.yml: apply',
      // keep-runs (#33.14): old nights' state pruned before it is saved.
      'action.yml: state',
      'action.yml: models',
      'action.yml: plan',
      'action.yml: plan',
      'action.yml: diff',
      'action.yml: comment',
      'action.yml: comment',
    ]);
  });

  it('use only commands and flags the CLI declares', () => {
    for (const call of invocations) {
      const text = help.get(call.command) ?? '';
      expect(text, `${call.file}: runner ${call.command}`).toMatch(
        new RegExp(`\\$ runner ${call.command}(?: |$)`, 'm'),
      );
      for (const flag of call.flags) {
        expect(text, `${call.file}: runner ${call.command} ${flag}`).toMatch(new RegExp(`${flag}(?![\\w-])`));
      }
    }
  });

  it('pass only inputs the action declares, and reference only declared inputs', async () => {
    const action = await readSteps('action.yml');
    const declared = Object.keys(action.doc.inputs as Record<string, unknown>);
    const text = await readFile(root + 'action.yml', 'utf8');
    for (const used of text.matchAll(/inputs\.([a-z-]+)/g)) expect(declared).toContain(used[1]);
    const required = Object.entries(action.doc.inputs as Record<string, { required?: boolean }>)
      .filter(([, input]) => input.required === true)
      .map(([name]) => name);
    for (const file of WORKFLOWS) {
      const workflow = await readSteps(file);
      const step = workflow.steps.find((candidate) => candidate.uses?.startsWith('mediagen/runner'));
      const passed = Object.keys(step?.with ?? {});
      for (const name of passed) expect(declared, file).toContain(name);
      for (const name of required) expect(passed, file).toContain(name);
    }
    expect((action.doc.runs as { using: string }).using).toBe('composite');
  });
});
