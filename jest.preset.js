// Shared jest settings: ts-jest transpiles only (type checking is the typecheck target's job),
// @gateway/* resolves to library sources (test tooling under tools/), and `.js` suffixes of generated protobuf imports are stripped.
const path = require('node:path');

module.exports = function preset(projectDir) {
  return {
    rootDir: projectDir,
    testEnvironment: 'node',
    testMatch: ['<rootDir>/src/**/*.test.ts'],
    transform: {
      '^.+\\.ts$': ['ts-jest', { tsconfig: path.join(__dirname, 'tsconfig.base.json'), diagnostics: false }],
    },
    moduleNameMapper: {
      '^@gateway/(test-stack|testing|deploy-checks)$': path.join(__dirname, 'tools/$1/src/index.ts'),
      '^@gateway/app-([^/]+)$': path.join(__dirname, 'apps/$1/src/index.ts'),
      '^@gateway/([^/]+)/testing$': path.join(__dirname, 'libs/$1/src/testing/index.ts'),
      '^@gateway/([^/]+)$': path.join(__dirname, 'libs/$1/src/index.ts'),
      '^(\\.{1,2}/.*)\\.js$': '$1',
    },
    // a hook's limit too: a store suite's beforeAll opens PGlite and runs its service's migrations, 24 s on a slow
    // 2-core machine alone (2026-11-30) and over 60 s with both cores busy and the e2e project beside it
    testTimeout: 120_000,
    maxWorkers: 2,
  };
};
