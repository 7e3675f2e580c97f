/**
 * The gateway client's public surface, required by src/host/gateway/clientLoader.ts on the first
 * request.
 */
import { createGatewayClient as createClient } from './client';
import type { GatewayClient } from './client';
import type { ClientOptions } from './types';

export function createGatewayClient(options: ClientOptions): GatewayClient {
  return createClient(options);
}

export type { GatewayClient } from './client';
export { DEFAULT_MAX_RETRIES, DEFAULT_STREAM_IDLE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS } from './client';
export { DIALECTS, DIALECT_KINDS, dialectSetting } from './dialects';
export { GatewayError } from './errors';
export type { GatewayErrorInit, GatewayErrorKind } from './errors';
export { ChatAccumulator, applyChatDelta, emptyCompletion, foldChatDeltas } from './fold';
export { collectMediaOutputs, mediaErrorText, normalizeMediaRecord, normalizeMediaStatus } from './media';
export * from './types';
