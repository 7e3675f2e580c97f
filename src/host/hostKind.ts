/**
 * Which extension host is running the one host bundle (dist/extension.js, both package.json `main`
 * and `browser`): Node's (desktop, a remote, Codespaces) or VS Code for the Web's web worker
 * (vscode.dev, github.dev). Each module with a browser variant (`foo.ts` beside `foo.web.ts`) is
 * reached in that bundle through a small switch the build writes (esbuild.mjs, `hostVariants`),
 * which takes `foo.ts` when this is true and `foo.web.ts` otherwise, once, on first use; so a
 * Node built-in is required only in the Node host.
 *
 * Decided by Node's own `process` object alone (its `versions.node`, and the `process` tag Node
 * gives it, which a look-alike defined by another extension in a worker lacks), never by what is
 * absent or present beside it: any extension in the same host can add a global such as
 * `importScripts`. A wrong answer has to fail closed: the Node variants in a web worker only fail
 * to load (a worker can require nothing but `vscode`), while the web variants in Node's host would
 * quietly apply the browser's weaker rules (no home-folder rule, no links resolved, no proxy
 * credentials from the environment to redact). Read from `globalThis`, so this module needs
 * neither Node's types nor the DOM's.
 */
const scope = globalThis as { process?: { versions?: { node?: unknown } } };

export const NODE_HOST: boolean =
  typeof scope.process?.versions?.node === 'string' &&
  Object.prototype.toString.call(scope.process) === '[object process]';
