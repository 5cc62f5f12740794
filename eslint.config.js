// ESLint (flat config) with typescript-eslint's recommended rules: `npm run lint`, run by .ci/run before the tests.
// Formatting is Prettier's (.prettierrc.json, `npm run format`); types are tsc's (`npm run typecheck`), so these
// rules are the syntax-level ones and need no type information (the whole tree lints in seconds).
// Why ESLint + Prettier rather than Biome: Biome's binary comes as one package per platform, and the npm registry
// this project installs from does not carry them all, so `npm ci` could not keep a lock file that works everywhere.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'compare-out/', 'data/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // `_name` marks a parameter an interface requires and the implementation does not read
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // the rule is aimed at `const self = this` closures; our one hit is a cursor walking up a tree from `this`
      '@typescript-eslint/no-this-alias': 'off',
    },
  },
  {
    // tests and benchmarks poke at untyped page values, match terminal output (ANSI escapes, aligned spaces) and
    // keep a few compact loops
    files: ['test/**', 'bench/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      'no-control-regex': 'off',
      'no-regex-spaces': 'off',
      '@typescript-eslint/no-unused-expressions': 'off',
    },
  },
  {
    // opentype.js ships no types: the shim and its one user type what they read as `any`
    files: ['viewer/src/meshes/font.ts', 'viewer/src/meshes/opentype.d.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['bin/**/*.js', 'scripts/**/*.js'],
    languageOptions: { globals: { process: 'readonly', URL: 'readonly', performance: 'readonly' } },
  },
);
