/**
 * Stands in for the MCP SDK's `validation/ajv-provider.js` in our build (esbuild.mjs), which would
 * otherwise bundle ajv (about 100 KB) for one default we never use: our client passes its own
 * `jsonSchemaValidator`, because tool output is read as untrusted text whatever its shape. Should
 * anything construct this default, it refuses every value rather than claim to have checked it.
 */
export class AjvJsonSchemaValidator {
  getValidator() {
    return () => ({
      valid: false as const,
      data: undefined,
      errorMessage: 'JSON Schema validation is not part of this build',
    });
  }
}
