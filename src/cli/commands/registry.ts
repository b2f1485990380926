import type { Command } from './command.js';
import { applyCommand } from './apply.js';
import { balanceCommand } from './balance.js';
import { commentCommand } from './comment.js';
import { diffCommand } from './diff.js';
import { initCommand } from './init.js';
import { modelsCommand } from './models.js';
import { planCommand } from './plan.js';
import { renderCommand } from './render.js';
import { reportCommand } from './report.js';
import { runsCommand } from './runs.js';
import { schemaCommand } from './schema.js';
import { simulateCommand } from './simulate.js';
import { stateCommand } from './state.js';
import { statusCommand } from './status.js';
import { validateCommand } from './validate.js';

/**
 * Every command, in the order `runner --help` lists them (after `help`, which src/cli/main.ts
 * declares). A new command is one module beside this file and one line here.
 */
export const COMMANDS: readonly Command[] = [
  modelsCommand,
  balanceCommand,
  simulateCommand,
  validateCommand,
  planCommand,
  diffCommand,
  applyCommand,
  statusCommand,
  runsCommand,
  renderCommand,
  initCommand,
  schemaCommand,
  reportCommand,
  stateCommand,
  commentCommand,
];
