import { join } from 'node:path';
import type { OpenRunInput } from '../../src/state/state-store.js';
import { useTempDir } from '../temp-dir.js';

/** Two machines sharing a run folder (a network folder): one lock file, two hosts. */
export const HOST_A = { hostname: 'host-a', bootId: 'boot-a', pidNamespace: 'pid:[a]' };
export const HOST_B = { hostname: 'host-b', bootId: 'boot-b', pidNamespace: 'pid:[b]' };

export interface FolderOfTwoHosts {
  /** The temporary work folder: the manifest's, the run folder's and each host's upload cache's place. */
  dir(): string;
  /**
   * Run `r1` of pipeline `p` in it as `host` opens it, its lock's clock `now`. No heartbeat during a
   * test: the holder's lease is what its clock says.
   */
  address(host: typeof HOST_A, now?: () => number): OpenRunInput;
}

/** Registers a work folder (`prefix`: its name) for a run folder two hosts share, on the file or describe. */
export function useFolderOfTwoHosts(prefix: string): FolderOfTwoHosts {
  const temp = useTempDir(prefix);
  return {
    dir: () => temp.path,
    address: (host, now = () => Date.now()) => {
      const dir = temp.path;
      return {
        manifestFile: join(dir, 'm.yaml'),
        stateDir: join(dir, 'state'),
        pipeline: 'p',
        runId: 'r1',
        uploadCachePath: join(dir, `uploads-${host.hostname}.json`),
        lock: { identity: host, heartbeatMs: 600_000, now },
      };
    },
  };
}
