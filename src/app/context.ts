import type { Output } from './output-sink.js';

/** Options every command accepts (declared once on the global command). */
export interface GlobalOptions {
  baseUrl?: string;
  apiKeyFile?: string;
  /** Run against an in-process embedded simulator instead of the real service. */
  simulate?: boolean;
  /** Time scale of the in-process simulator (with --simulate). */
  simTimeScale?: number;
  logFile?: string;
  color?: boolean;
}

/** What a command gets besides its own options. */
export interface CommandContext {
  output: Output;
  env: NodeJS.ProcessEnv;
  cwd: string;
  global: GlobalOptions;
  /** Whether a person can answer a prompt (stdin and stderr are terminals, not CI). */
  canPrompt: boolean;
  /** Asks a yes/no question: the injected prompt (the CLI asks on the terminal, src/cli/effects/confirm.ts). */
  confirm(question: string): Promise<boolean>;
}
