// For tsconfig.web.json only. The Node build's lazy `require('./chatBundle')` and the like (the
// feature loaders, the client loader) are plain CommonJS there; the browser build bundles each of
// them in (esbuild resolves a `require` of a literal path at build time), so the browser graph
// needs the name without Node's types. Nothing else may rely on it: a `require` of anything the
// bundler cannot resolve fails the browser build.
declare function require(id: string): unknown;
