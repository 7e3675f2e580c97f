/**
 * The language-model feature's entry: the provider behind the gateway's models
 * in VS Code's chat. Only `lmLoader.ts` requires it, on VS Code's first call to the provider.
 */
export { GatewayChatModelProvider } from './gatewayChatModelProvider';
export type { LmProviderDeps, LmUsageReport } from './gatewayChatModelProvider';
