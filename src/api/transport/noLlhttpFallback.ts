/**
 * Stands in for undici's `llhttp/llhttp-wasm.js` in our build (esbuild.mjs): the HTTP parser
 * without WebAssembly SIMD, which undici loads only when the SIMD build fails to compile. Every
 * runtime VS Code ships on (x64 and arm64 Electron and Node) compiles the SIMD build, and each
 * build is a 70 KB blob, a sixth of the package. Should one ever not, the request fails with this
 * message instead of loading nothing.
 */
throw new Error(
  'The gateway client needs WebAssembly SIMD, which this runtime does not offer (undici llhttp-wasm is not shipped).',
);

export {};
