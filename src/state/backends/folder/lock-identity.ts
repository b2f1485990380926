import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { HostIdentity } from '../../lock-options.js';

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
