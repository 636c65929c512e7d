// Lint (part of `npm test`): typescript-eslint's recommended rules, plus the two import arrows the layers depend on
// (README, "Development"): the core never imports the editor API, and commands never import the views.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', '.cache/**', '.vscode-test/**', 'test/fixtures/**', 'demo/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Modules that only some commands need are loaded with require() where they are used, so that `save` and
      // `list` and the extension's activation do not pay for them (see `npm run bench`).
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  {
    // Scripts that hand functions to a browser page (page.evaluate) name the page's globals.
    files: ['test/e2e/**', 'scripts/bench/vscode-activation.mjs', 'scripts/**/*.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      // Node's modules are imported by name: esbuild reaches a namespace or default import through a copy of the module
      // whose every member is a getter, made at start-up in each module, and `import x = require('node:x')` hides
      // what a module uses of it.
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ImportDeclaration[source.value=/^node:/] > :matches(ImportNamespaceSpecifier, ImportDefaultSpecifier)',
          message: "Import what you use of a Node module by name (`import { join } from 'node:path'`): a namespace or default import costs the bundles a copy of it.",
        },
        {
          selector: 'TSImportEqualsDeclaration[moduleReference.expression.value=/^node:/]',
          message: "Import what you use of a Node module by name (`import { join } from 'node:path'`).",
        },
      ],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      // typescript-eslint's version also sees `import vscode = require('vscode')`.
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'src/core/ is shared with the CLI: it never imports the editor API.' }] }],
    },
  },
  {
    files: ['src/editor/commands/**/*.ts'],
    rules: {
      'no-restricted-imports': 'off',
      // A command may name the tree's node types (what it gets when run from the view): a type import only.
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ group: ['**/views/**', '../views/*'], allowTypeImports: true, message: 'Commands go through the model (folderCheckpoints, workspaceModel, commandIds, services), never the views.' }] }],
    },
  },
);
