import { defineConfig } from 'vitest/config';

// Each test file gets its own database (a fresh PGlite instance, or a fresh PostgreSQL database when
// DATABASE_URL is set), so files run in parallel without sharing state.
export default defineConfig({
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default'],
  },
});
