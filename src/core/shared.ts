/**
 * The entry of dist/shared.js: what every host bundle shares at run time, bundled once and
 * required by the others (see esbuild.mjs) instead of being copied into each: the client's one
 * error type and constants (so a GatewayError from the client is an `instanceof GatewayError` in
 * the host), and the ids, the settings model and the secrets list every feature reads (one copy
 * keeps the package under its size budget).
 */
export * from '../api/errors';
export * from '../api/types';
export * from './ids';
export * from './config/settingsModel';
export * from './inline/exclude';
