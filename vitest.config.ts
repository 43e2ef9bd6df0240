import { defineConfig } from 'vitest/config';

// Two projects: `unit` (pure code, no services: `npm run test:unit`, seconds) and `integration`
// (files named *.integration.test.ts: a real Chroma server started once in globalSetup, and the
// local Redis). `npm test` runs both.
const shared = {
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  test: {
    // 2-core machines: keep parallelism modest so Chroma and Redis tests stay stable.
    maxWorkers: 2,
    projects: [
      {
        test: {
          ...shared,
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: ['test/**/*.integration.test.ts'],
          // A unit test that reaches for Redis fails here instead of quietly needing a service.
          env: { REDIS_URL: 'redis://127.0.0.1:1' },
        },
      },
      {
        test: {
          ...shared,
          name: 'integration',
          include: ['test/**/*.integration.test.ts'],
          // Integration tests share one Chroma server started in globalSetup.
          globalSetup: ['test/setup/global.ts'],
          // Deletes the Redis keys of every namespace a test file created, when the file ends.
          setupFiles: ['test/setup/redis-cleanup.ts'],
        },
      },
    ],
  },
});
