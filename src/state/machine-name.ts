import { hostname } from 'node:os';

/**
 * The name `status` and `report` show for the machine that did a job, when several apply one run
 * (issue 17.4): `RUNNER_MACHINE` when set (a CI matrix names its legs), else the host name and the
 * process id, which tells two processes on one host apart.
 */
/**
 * The machine itself, for telling whether an output folder the state recorded is one of this machine
 * (#30.1): `RUNNER_MACHINE` when set, else the host name (the same for every process of the host).
 */
export function hostOf(env: Readonly<Record<string, string | undefined>>): string {
  const named = env.RUNNER_MACHINE?.trim();
  return named === undefined || named === '' ? hostname() : named;
}

export function machineName(env: Readonly<Record<string, string | undefined>>): string {
  const named = env.RUNNER_MACHINE?.trim();
  return named === undefined || named === '' ? `${hostname()} pid ${process.pid}` : named;
}
