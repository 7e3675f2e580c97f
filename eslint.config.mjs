// Lint: rules that catch bugs (with type information) plus the layer rules that keep the folders
// apart. Layout is Prettier's job, so no stylistic rules here.
//
// Layers (rule `local/layers`, lint/layers.mjs, which says how imports are matched):
//   src/api/**        gateway client core: no vscode, no DOM; network libraries only in transport/
//   src/core/**       pure domain code: no vscode, no network libraries, no host or webview, no DOM
//   src/webview/**    browser code: no vscode, no Node built-ins, no host; src/api for types only
//   src/host/**, src/extension.ts   the VS Code side: no webview code, and the gateway client
//                     (src/api, src/api/client) only through src/host/gateway/clientLoader.ts,
//                     which requires it on first use
import js from '@eslint/js';
import globals from 'globals';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import local from './lint/plugin.mjs';

const root = path.dirname(fileURLToPath(import.meta.url));

const networkLibraries = {
  packages: ['undici', 'eventsource-parser'],
  message: 'only src/api/transport/** may load a network library: requests go through the transport.',
};
const noVscode = {
  packages: ['vscode'],
  message: 'this layer must run without the VS Code API; keep vscode in src/host/**.',
};
const noNode = {
  nodeBuiltins: true,
  message: 'the webview runs in a browser, where Node built-ins do not exist.',
};
const noNodeInBrowserBuild = {
  nodeBuiltins: true,
  message:
    'this module is part of the browser build (VS Code for the Web), where Node built-ins do not exist; put Node-only code in a module with a `.web.ts` variant (see esbuild.mjs).',
};
/** Node globals that code shared with the browser build must not reach for. */
const nodeGlobals = ['Buffer', 'process', 'global', 'setImmediate', '__dirname', '__filename'].map(
  (name) => ({
    name,
    message: 'this module is part of the browser build, where Node globals do not exist.',
  }),
);
const noHost = {
  paths: ['src/host/**', 'src/extension'],
  message: 'the VS Code side depends on this layer, not the other way round.',
};
const noWebview = {
  paths: ['src/webview/**'],
  message: 'webview code runs in the browser bundle; share types and messages through src/core/protocol.',
};
/** The host's main bundle may use these pure helpers of the client directly. */
const clientHelpers = [
  'src/api/errors',
  'src/api/types',
  'src/api/redact',
  'src/api/media',
  'src/api/json',
  'src/api/fold',
  'src/api/dialects',
  'src/api/endpoint',
  'src/api/base64',
];
const lazyClient = {
  paths: ['src/api/**'],
  except: clientHelpers,
  allowTypeOnly: true,
  message:
    'the gateway client is evaluated on first use, through src/host/gateway/clientLoader.ts; import its types with `import type`, or one of the pure helpers (errors, types, redact, media, json, fold).',
};

/** DOM globals that code outside the webview must not reach for (it runs in Node). */
const domGlobals = [
  'window',
  'self',
  'document',
  'navigator',
  'location',
  'history',
  'localStorage',
  'sessionStorage',
  'HTMLElement',
  'Element',
  'HTMLInputElement',
  'HTMLTextAreaElement',
  'HTMLButtonElement',
  'MutationObserver',
  'ResizeObserver',
  'IntersectionObserver',
  'requestAnimationFrame',
  'cancelAnimationFrame',
  'getComputedStyle',
  'DOMParser',
  'acquireVsCodeApi',
].map((name) => ({ name, message: 'this layer runs in Node, where the DOM does not exist.' }));

const layerRule = (...forbid) => ({ 'local/layers': ['error', { forbid }] });

export default defineConfig(
  {
    ignores: [
      'dist/**',
      'out/**',
      'node_modules/**',
      '.vscode-test/**',
      '.test-work/**',
      'media/**',
      // Declarations for tsconfig.web.json alone (not in the lint project).
      'build/**/*.d.ts',
      // Deliberately broken sources for test/unit/lint; the test lints them itself.
      'test/fixtures/**',
    ],
  },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },

  // TypeScript: type-aware. Each file is checked in the tsconfig nearest to it
  // (src/webview/tsconfig.json for the webview, tsconfig.json for everything else).
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: root } },
    plugins: { local },
    settings: { layers: { root } },
    rules: {
      // One form for type-only imports: a separate `import type { … }` line. `typeof import('x')`
      // stays allowed: it types the lazy `require('x')` of a bundle loaded on first use.
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'separate-type-imports', disallowTypeAnnotations: false },
      ],
      'local/separate-type-imports': 'error',
      // Promises: a dropped or misplaced promise loses its error.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // tsc already reports unused locals and parameters (noUnusedLocals, noUnusedParameters).
      '@typescript-eslint/no-unused-vars': 'off',
    },
  },
  { files: ['src/**/*.ts'], rules: layerRule(networkLibraries) },

  // Layers. A later block replaces an earlier block's `local/layers` options, so each lists all
  // of its restrictions.
  {
    files: ['src/api/**/*.ts'],
    rules: {
      ...layerRule(networkLibraries, noVscode, noHost, noWebview, noNodeInBrowserBuild),
      'no-restricted-globals': ['error', ...domGlobals, ...nodeGlobals],
    },
  },
  {
    files: ['src/api/transport/**/*.ts'],
    rules: layerRule(noVscode, noHost, noWebview, noNodeInBrowserBuild),
  },
  {
    // The proxy's credentials from Node's environment; the browser takes `proxy.web.ts` instead.
    files: ['src/api/transport/proxy.ts'],
    rules: { 'no-restricted-globals': ['error', ...domGlobals] },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      ...layerRule(networkLibraries, noVscode, noHost, noWebview, lazyClient, noNodeInBrowserBuild),
      'no-restricted-globals': ['error', ...domGlobals, ...nodeGlobals],
    },
  },
  {
    files: ['src/webview/**/*.ts'],
    rules: layerRule(networkLibraries, noVscode, noNode, noHost, {
      paths: ['src/api/**'],
      allowTypeOnly: true,
      message:
        'the webview has no network stack of its own; use `import type`, and talk to the host by message.',
    }),
  },
  {
    files: ['src/host/**/*.ts', 'src/extension.ts'],
    rules: layerRule(networkLibraries, noWebview, lazyClient),
  },
  {
    // A module's browser variant (`x.web.ts` beside `x.ts`), taken by the browser build instead.
    files: ['src/host/**/*.web.ts'],
    rules: {
      ...layerRule(networkLibraries, noWebview, lazyClient, noNodeInBrowserBuild),
      'no-restricted-globals': ['error', ...nodeGlobals],
    },
  },
  {
    // The one place that loads the client bundle: `require('../../api')`.
    files: ['src/host/gateway/clientLoader.ts'],
    rules: layerRule(networkLibraries, noWebview, {
      ...lazyClient,
      except: [...clientHelpers, 'src/api', 'src/api/client'],
    }),
  },

  // Build and test scripts: plain Node ESM, no type information.
  {
    files: ['**/*.mjs'],
    extends: [js.configs.recommended],
    languageOptions: { globals: globals.node },
  },
);
