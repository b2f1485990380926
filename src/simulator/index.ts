/** The embedded simulator of the media-generation service (see README.md in this folder). */
export { startSimulator } from './server.js';
export type {
  AccountPatch,
  Dialect,
  FaultOptions,
  HostileOptions,
  Simulator,
  SimulatorOptions,
  SimulatorStats,
} from './types.js';
export { describeDialectSpec, parseDialectSpec, parseHostileSpec } from './dialect.js';
export { keyEncodings } from './echo-key.js';
