/**
 * Which extension host is running the one host bundle (dist/extension.js, both package.json `main`
 * and `browser`): Node's (desktop, a remote, Codespaces) or VS Code for the Web's web worker
 * (vscode.dev, github.dev). Each module with a browser variant (`foo.ts` beside `foo.web.ts`) is
 * reached in that bundle through a small switch the build writes (esbuild.mjs, `hostVariants`),
 * which takes `foo.ts` when this is true and `foo.web.ts` otherwise, once, on first use; so a
 * Node built-in is required only in the Node host.
 *
 * Node's own `process.versions.node` names Node, and a worker's `importScripts` rules it out (a
 * page's script could define a `process` of its own; no worker global scope has `importScripts`
 * missing). Read from `globalThis`, so this module needs neither Node's types nor the DOM's.
 */
const scope = globalThis as {
  process?: { versions?: { node?: unknown } };
  importScripts?: unknown;
};

export const NODE_HOST: boolean =
  typeof scope.process?.versions?.node === 'string' && typeof scope.importScripts !== 'function';
