/**
 * Stands in for undici's `dispatcher/client-h2.js` in our build (esbuild.mjs): the HTTP/2 client
 * (about 10 KB minified). undici runs it only for a connection whose TLS handshake chose `h2`, and
 * it offers `h2` in ALPN only to a dispatcher made with `allowH2` or `useH2c` (both default off in
 * undici 7). Our agents (src/api/transport/http.ts) set neither, so every connection is HTTP/1.1
 * and this function is never called; should it be, the request fails with this message.
 */
function connectH2(): never {
  throw new Error(
    'HTTP/2 is not part of this build of the gateway client (undici client-h2 is not shipped).',
  );
}

// undici requires this module as CommonJS and calls the export itself.
module.exports = connectH2;
