import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import pluginVue from 'eslint-plugin-vue';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'web/dist/**', 'coverage/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Fastify plugins are async by contract, whether or not they await anything.
    files: ['src/routes/**/*.ts'],
    rules: { '@typescript-eslint/require-await': 'off' },
  },
  // The web client (web/): Vue single-file components, typed through web/tsconfig.json.
  ...pluginVue.configs['flat/recommended'].map((config) => ({ ...config, files: ['web/**/*.vue'] })),
  {
    files: ['web/**/*.vue'],
    languageOptions: {
      parserOptions: { parser: tseslint.parser, projectService: true, tsconfigRootDir: import.meta.dirname, extraFileExtensions: ['.vue'] },
      globals: globals.browser,
    },
    rules: {
      // Prettier-style formatting is not enforced; these layout rules fight long attribute lists.
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/html-self-closing': ['error', { html: { void: 'always', normal: 'always', component: 'always' } }],
    },
  },
  {
    files: ['web/**/*.ts'],
    languageOptions: { globals: globals.browser },
  },
  {
    // Unit-test fakes implement async interfaces without awaiting; mocks are passed around unbound.
    files: ['web/test/**/*.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/require-await': 'off', '@typescript-eslint/unbound-method': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.js', 'web/vite.config.ts'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: globals.node },
  },
);
