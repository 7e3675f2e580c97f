/**
 * Stands in for undici's `web/fetch/body.js` in our build (esbuild.mjs). Its HTTP/1.1 client
 * requires it only to serialise a request body that is a `FormData` (multipart), and the module
 * brings most of undici's fetch with it (WebIDL, FormData and its parser, data: URLs: about
 * 40 KB minified). Our transport (src/api/transport/http.ts) only ever sends a JSON string, so
 * `extractBody` is never called; should it be, the request fails with this message.
 */
function extractBody(): never {
  throw new Error('FormData request bodies are not part of this build of the gateway client.');
}

// undici requires this module as CommonJS and reads `extractBody` from it.
module.exports = { extractBody };
