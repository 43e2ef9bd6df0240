import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests share one Chroma server started in globalSetup.
    globalSetup: ['test/setup/global.ts'],
    // Deletes the Redis keys of every namespace a test file created, when the file ends.
    setupFiles: ['test/setup/redis-cleanup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // 2-core machines: keep parallelism modest so Chroma and Redis tests stay stable.
    maxWorkers: 2,
  },
});
