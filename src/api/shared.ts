/**
 * What the client bundle and the extension host share at run time: the one error type and the
 * client's constants. Bundled once, as dist/shared.js, and required by both (see esbuild.mjs).
 */
export * from './errors';
export * from './types';
