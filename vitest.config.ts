import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'test/crash/**', 'test/build/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
