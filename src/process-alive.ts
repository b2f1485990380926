/**
 * Whether a process with this pid runs on this host (EPERM: it runs, as another user). One answer for
 * the folder lock's "its holder died" and the sweep of kept images a killed apply left.
 */
export function isProcessAlive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
