/**
 * Stands in for zod's `v4/core/json-schema-processors.js` and `v4/core/to-json-schema.js` where
 * zod's schema classes import them, in the MCP bundle (MODULE_STUBS of build/bundles.mjs). They turn
 * a zod schema into JSON Schema (`schema.toJSONSchema()`, `~standard.jsonSchema`, about 16 KB
 * minified). In the MCP SDK only its server does that (`toJsonSchemaCompat`, for the tools it
 * offers); its client, all our bundle holds, only parses messages with the schemas and reads
 * neither `toJSONSchema` nor `~standard`, and our own code imports no zod (a server's tool schemas
 * arrive as JSON). Should anything ask, it fails with this message. `aggregateChecks` (behind a
 * schema's `minLength`, `format`, … getters) stays zod's own.
 */
export { aggregateChecks } from '../../../../node_modules/zod/v4/core/json-schema-processors.js';

function unsupported(): never {
  throw new Error('Converting zod schemas to JSON Schema is not part of this build.');
}

/** `createToJSONSchemaMethod` and `createStandardJSONSchemaMethod` make methods that convert. */
export const createToJSONSchemaMethod = (): typeof unsupported => unsupported;
export const createStandardJSONSchemaMethod = (): typeof unsupported => unsupported;
export const stringProcessor = unsupported;
export const numberProcessor = unsupported;
export const booleanProcessor = unsupported;
export const bigintProcessor = unsupported;
export const symbolProcessor = unsupported;
export const nullProcessor = unsupported;
export const undefinedProcessor = unsupported;
export const voidProcessor = unsupported;
export const neverProcessor = unsupported;
export const anyProcessor = unsupported;
export const unknownProcessor = unsupported;
export const dateProcessor = unsupported;
export const enumProcessor = unsupported;
export const literalProcessor = unsupported;
export const nanProcessor = unsupported;
export const templateLiteralProcessor = unsupported;
export const fileProcessor = unsupported;
export const successProcessor = unsupported;
export const customProcessor = unsupported;
export const functionProcessor = unsupported;
export const transformProcessor = unsupported;
export const mapProcessor = unsupported;
export const setProcessor = unsupported;
export const arrayProcessor = unsupported;
export const objectProcessor = unsupported;
export const unionProcessor = unsupported;
export const intersectionProcessor = unsupported;
export const tupleProcessor = unsupported;
export const recordProcessor = unsupported;
export const nullableProcessor = unsupported;
export const nonoptionalProcessor = unsupported;
export const defaultProcessor = unsupported;
export const prefaultProcessor = unsupported;
export const catchProcessor = unsupported;
export const pipeProcessor = unsupported;
export const readonlyProcessor = unsupported;
export const promiseProcessor = unsupported;
export const optionalProcessor = unsupported;
export const lazyProcessor = unsupported;
export const allProcessor = unsupported;
