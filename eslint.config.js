import eslint from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'build/', '.stryker-tmp/', 'reports/'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        performance: 'readonly'
      }
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }]
    }
  },
  {
    // Promises checked with the types: one left floating, or handed where a plain callback is
    // expected, loses its rejection (the code races promises by hand in places).
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname }
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error'
    }
  },
  {
    // Small pieces in src/ and in the test support: a function a reader can hold in mind, a module
    // about one thing. Split one along its seams as it nears a limit, not when a feature hits it.
    files: ['src/**/*.ts', '__tests__/support/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 50, skipBlankLines: true, skipComments: true }],
      'max-lines': ['error', { max: 200, skipBlankLines: true, skipComments: true }]
    }
  },
  {
    // The pull request is the action's alone: below the front ends, nothing names the action's own
    // inputs (src/runner/input-helper.ts reads them), so the gate stays the same for both.
    files: ['src/{domain,api,wait,report,steps,gate}/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'Literal[value=/^(pr_comment|pr_comment_author|github_token)$/]',
          message: 'An input of the action alone: read it in src/runner/.'
        },
        {
          selector: 'Identifier[name=/^(prComment|prCommentAuthor|githubToken)$/]',
          message: 'An input of the action alone: keep it in src/runner/.'
        }
      ]
    }
  },
  {
    // script/ runs under Node's type stripping (npm run demo, api-server, screenshots), which has
    // no parameter properties, enums or namespaces; so does the test support it runs on.
    files: ['script/**/*.ts', '__tests__/support/**/*.ts'],
    rules: {
      '@typescript-eslint/parameter-properties': ['error', { prefer: 'class-property' }],
      'no-restricted-syntax': ['error', 'TSEnumDeclaration', 'TSModuleDeclaration']
    }
  }
)
