import type { ServiceClient } from '../service/service-client.js';

/**
 * An open connection to the service, as the use cases need it. The CLI makes it (src/cli/effects/connect.ts:
 * the real service, or the embedded simulator with `--simulate`) and passes it in, so a use case never
 * chooses its own client.
 */
export interface ServiceConnection {
  client: ServiceClient;
  /** Set with `--simulate`. */
  simulator?: unknown;
  /** 1 against the real service; the simulator's factor with `--simulate`. */
  timeScale: number;
  /**
   * Which account the key pays from, as a run records it (#31.7): a hash of the service's address
   * and the key, never the key. Absent with `--simulate` (each simulated run is an account of its own).
   */
  account?: string;
  close(): Promise<void>;
}
