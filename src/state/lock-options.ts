/**
 * What opening a run's state may be told about the folder lock (its lease timing, and the identity a
 * test fakes): shared by the store's `OpenRunInput`, `runner state prune` and the CLI's environment
 * variables, so none of them reaches into the folder backend for a type. The lock itself is
 * `backends/folder/lock.ts`.
 */

/**
 * Where a process runs, as far as its pid means anything: two processes can compare pids only when
 * they share the host (hostname and the kernel's boot id) and the PID namespace. Containers on one
 * host differ in their namespace (each may run as pid 1); two CI runners on one network disk differ
 * in their host.
 */
export interface HostIdentity {
  hostname: string;
  /** `/proc/sys/kernel/random/boot_id`: undefined where there is no /proc (macOS, Windows). */
  bootId?: string;
  /** The PID namespace, `readlink /proc/self/ns/pid` (e.g. `pid:[4026531836]`); undefined without /proc. */
  pidNamespace?: string;
}

/** How the folder lock is taken and held (`acquireLock`). */
export interface AcquireLockOptions {
  /** @default process.pid */
  pid?: number;
  /** Whether a process is alive. @default `process.kill(pid, 0)` */
  isAlive?: (pid: number) => boolean;
  now?: () => number;
  /** Where this runner runs (tests fake containers). @default readHostIdentity() */
  identity?: HostIdentity;
  /** @default `DEFAULT_LOCK_HEARTBEAT_MS` (backends/folder/lock.ts) */
  heartbeatMs?: number;
  /** @default `DEFAULT_LOCK_STALE_MS` (backends/folder/lock.ts) */
  staleAfterMs?: number;
}
