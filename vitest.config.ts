import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Cross-cutting contract suites in test/, feature suites beside their feature, the SDK's in its package,
    // the dashboard's unit suites beside their module.
    include: ['test/**/*.test.ts', 'src/**/*.test.ts', 'packages/client/test/**/*.test.ts', 'web/src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
  },
});
