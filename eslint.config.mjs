import js from '@eslint/js';
import { createProjectGraphAsync } from '@nx/devkit';
import nx from '@nx/eslint-plugin';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// The boundary rule reads the project graph nx cached last. An nx task (`nx run-many -t lint`) has just computed
// it; a plain `npx eslint` computes it first, so an import added since the last nx run is judged on the graph it makes.
if (!process.env.NX_TASK_TARGET_PROJECT) await createProjectGraphAsync({ exitOnError: false });

// Module boundaries (docs/conventions.md, "Layout"), read from the nx project graph and the projects' tags.
// Product code (type:app, type:lib) depends on libraries only, so an app never imports another app; tests beside
// product code may also use the test helpers (type:testing), never the whole-stack tooling: a test that starts the
// stack lives in tools/e2e (type:e2e). The tooling (type:tool) may use anything but the e2e tests, the apps included
// (the test stack starts them). Inside the libraries, a layer depends only on the layers below it:
// util ← data-access ← feature. No cycle is allowed anywhere (none is ignored), so nx affected follows real dependents.
const PRODUCT = ['type:lib'];
const TESTS = ['type:lib', 'type:testing'];
/** @param {{ productMay: string[], allow?: string[] }} opts @returns {import('eslint').Linter.RuleEntry} */
const boundaries = ({ productMay, allow = [] }) => [
  'error',
  {
    allow,
    enforceBuildableLibDependency: false,
    depConstraints: [
      { sourceTag: 'type:app', onlyDependOnLibsWithTags: productMay },
      { sourceTag: 'type:lib', onlyDependOnLibsWithTags: productMay },
      // the test helpers: npm packages and the service catalogue (@gateway/config, no dependencies) only
      { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:testing', 'catalogue'] },
      { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib', 'type:testing', 'type:tool', 'type:app'] },
      { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:lib', 'type:testing', 'type:tool', 'type:app'] },
      { sourceTag: 'layer:util', onlyDependOnLibsWithTags: ['layer:util', 'type:testing'] },
      { sourceTag: 'layer:data-access', onlyDependOnLibsWithTags: ['layer:data-access', 'layer:util', 'type:testing'] },
      { sourceTag: 'layer:feature', onlyDependOnLibsWithTags: ['layer:feature', 'layer:data-access', 'layer:util', 'type:testing'] },
    ],
  },
];
// A library's test helpers (`@gateway/<lib>/testing`, e.g. storageBackends of @gateway/store) are for tests only.
/** @type {import('eslint').Linter.RuleEntry} */
const noTestHelpers = ['error', { patterns: [{ group: ['@gateway/*/testing'], message: 'test helpers are for tests (*.test.ts, src/testing/) only' }] }];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'libs/contracts/src/gen/**', 'tools/*/fixtures/**', '**/*.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@nx/enforce-module-boundaries': boundaries({ productMay: PRODUCT }),
      'no-restricted-imports': noTestHelpers,
    },
  },
  {
    files: ['**/*.test.ts', '**/src/testing/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': boundaries({ productMay: TESTS }), 'no-restricted-imports': 'off' },
  },
  {
    // nx forbids importing an application outright; the tooling is the one place that must (@gateway/app-<name>)
    files: ['tools/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': boundaries({ productMay: TESTS, allow: ['@gateway/app-*'] }), 'no-restricted-imports': 'off' },
  },
  {
    // the repository's scripts (npm start, the generators, the test summary): plain ES modules run by node
    files: ['scripts/**/*.mjs', 'eslint.config.mjs'],
    languageOptions: { globals: globals.node },
  },
);
