import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration and end-to-end tests start real loopback servers and child processes;
    // two cores on CI, so keep the worker count modest and the timeouts generous.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
