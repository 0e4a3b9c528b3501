/** Unit specs live beside the code; e2e specs under test/ boot the whole stack. */
const common = {
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json', diagnostics: false }] },
  moduleNameMapper: { '^@/(.*)$': '<rootDir>/src/$1', '^@test/(.*)$': '<rootDir>/test/$1' },
  testEnvironment: 'node',
};
module.exports = {
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  maxWorkers: 2,
  // The run ends when its last file does: nothing a file left behind (a replica, a socket) may hold CI open.
  forceExit: true,
  reporters: ['default', '<rootDir>/test/setup/summary-reporter.js'],
  testTimeout: 30000,
  projects: [
    { ...common, displayName: 'unit', rootDir: __dirname, testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'e2e',
      rootDir: __dirname,
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      setupFiles: ['<rootDir>/test/setup/env.ts', '<rootDir>/test/setup/tenant-filter.ts'],
    },
  ],
};
