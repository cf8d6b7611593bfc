import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    globalSetup: ['test/support/build-once.ts'],
    // Tests talk to servers on 127.0.0.1 only; a stray request elsewhere would hang, not pass.
    restoreMocks: true,
  },
});
