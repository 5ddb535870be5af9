import js from '@eslint/js';
import { createProjectGraphAsync } from '@nx/devkit';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

// The boundary rule reads the project graph nx cached last. An nx task (`nx run-many -t lint`) has just computed
// it; a plain `npx eslint` computes it first, so an import added since the last nx run is judged on the graph it makes.
if (!process.env.NX_TASK_TARGET_PROJECT) await createProjectGraphAsync({ exitOnError: false });

// Module boundaries (docs/conventions.md, "Layout"), read from the nx project graph and the projects' tags:
// product code (type:app, type:lib) depends on libraries only, so an app never imports another app; tests beside
// product code may also use test tooling (type:tool); the tooling may use anything, apps included (it starts them).
const PRODUCT = ['type:lib'];
const TESTS = ['type:lib', 'type:tool'];
const boundaries = ({ productMay, allow = [] }) => [
  'error',
  {
    allow,
    enforceBuildableLibDependency: false,
    // integration tests of a project start it through the test tooling, which imports it
    ignoredCircularDependencies: [['tag:type:app', 'tag:type:tool'], ['tag:type:lib', 'tag:type:tool']],
    depConstraints: [
      { sourceTag: 'type:app', onlyDependOnLibsWithTags: productMay },
      { sourceTag: 'type:lib', onlyDependOnLibsWithTags: productMay },
      { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:lib', 'type:tool', 'type:app'] },
    ],
  },
];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'libs/contracts/src/gen/**', 'tools/*/fixtures/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@nx/enforce-module-boundaries': boundaries({ productMay: PRODUCT }),
    },
  },
  {
    files: ['**/*.test.ts', '**/src/testing/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': boundaries({ productMay: TESTS }) },
  },
  {
    // nx forbids importing an application outright; the tooling is the one place that must (@gateway/app-<name>)
    files: ['tools/**/*.ts'],
    rules: { '@nx/enforce-module-boundaries': boundaries({ productMay: TESTS, allow: ['@gateway/app-*'] }) },
  },
);
