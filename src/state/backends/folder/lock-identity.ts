import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

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

/** This process's {@link HostIdentity}, read once: none of it changes while a process runs. */
export function readHostIdentity(): HostIdentity {
  cached ??= {
    hostname: hostname(),
    ...optional('bootId', () => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()),
    ...optional('pidNamespace', () => readlinkSync('/proc/self/ns/pid')),
  };
  return cached;
}

let cached: HostIdentity | undefined;

function optional<K extends 'bootId' | 'pidNamespace'>(key: K, read: () => string): Partial<HostIdentity> {
  try {
    const value = read();
    return value === '' ? {} : { [key]: value };
  } catch {
    // No /proc: the identity cannot be proven, so a pid is never compared (the lease decides).
    return {};
  }
}

/**
 * Whether a pid recorded by `holder` can be checked from `self`: the same host, the same boot and
 * the same PID namespace, each proven (a field either side lacks proves nothing).
 */
export function isSamePidSpace(holder: Partial<HostIdentity>, self: HostIdentity): boolean {
  return (
    holder.hostname === self.hostname &&
    self.bootId !== undefined &&
    holder.bootId === self.bootId &&
    self.pidNamespace !== undefined &&
    holder.pidNamespace === self.pidNamespace
  );
}
