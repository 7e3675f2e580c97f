/**
 * Source text for a fresh Node process that loads a built bundle outside the extension host:
 * declares `stub`, a do-nothing stand-in for `vscode` (which exists only inside the host). Every
 * property, call and construction gives the stand-in back, so code that wires things up runs
 * without doing anything.
 */
export const VSCODE_STUB_SCRIPT = `
  const stub = new Proxy(function () {}, {
    get: (_, key) => (key === 'prototype' ? {} : key === Symbol.toPrimitive ? () => '' : stub),
    set: () => true,
    defineProperty: () => true,
    apply: () => stub,
    construct: () => stub,
  });
`;
