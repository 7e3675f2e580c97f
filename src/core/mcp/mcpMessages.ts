/**
 * What an MCP server sends, parsed at one boundary: JSON-RPC 2.0 messages, bounded in size and
 * checked by shape. Everything a server sends is outside data; a message of the wrong size or shape
 * becomes a `{ ok: false, reason }` the client can say, never an exception.
 */
import { isRecord, ownSlice } from '../../api/json';

/** The protocol versions this client speaks, newest first (the first is what it asks for). */
export const MCP_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];
/** The longest message a server may send (a tool result with an image is a few MB of base64). */
export const MAX_MCP_MESSAGE_CHARS = 16 * 1024 * 1024;
/** The most messages one JSON reply (a batch) may hold. */
export const MAX_MCP_BATCH = 100;
/** The longest id, method name or error message kept from a server. */
const MAX_ID_CHARS = 200;
const MAX_METHOD_CHARS = 200;
const MAX_ERROR_MESSAGE_CHARS = 1_000;

export type JsonRpcId = string | number;

/** One message from a server, by kind. */
export type McpServerMessage =
  | { kind: 'result'; id: JsonRpcId; result: Record<string, unknown> }
  | { kind: 'error'; id: JsonRpcId | null; code: number; message: string }
  | { kind: 'request'; id: JsonRpcId; method: string; params: Record<string, unknown> }
  | { kind: 'notification'; method: string; params: Record<string, unknown> };

export type McpParse = { ok: true; messages: McpServerMessage[] } | { ok: false; reason: string };

/** The messages in one JSON text from a server (one message, or a batch of them). */
export function parseMcpMessages(text: string): McpParse {
  if (text.length > MAX_MCP_MESSAGE_CHARS)
    return { ok: false, reason: `a message of more than ${MAX_MCP_MESSAGE_CHARS} characters` };
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return { ok: false, reason: `a message that is not JSON (${preview(text)})` };
  }
  const values = Array.isArray(value) ? value : [value];
  if (!values.length || values.length > MAX_MCP_BATCH)
    return { ok: false, reason: `a batch of ${values.length} messages` };
  const messages: McpServerMessage[] = [];
  for (const item of values) {
    const message = parseMcpMessage(item);
    if (typeof message === 'string') return { ok: false, reason: message };
    messages.push(message);
  }
  return { ok: true, messages };
}

/** One parsed JSON value as a message, or why it is not one. */
export function parseMcpMessage(value: unknown): McpServerMessage | string {
  if (!isRecord(value)) return 'a message that is not a JSON object';
  if (value.jsonrpc !== '2.0') return 'a message without "jsonrpc": "2.0"';
  const hasId = 'id' in value && value.id !== undefined;
  const id = parseId(value.id);
  if ('method' in value) {
    const method = value.method;
    if (typeof method !== 'string' || !method || method.length > MAX_METHOD_CHARS)
      return 'a message whose method is not a short string';
    const params = value.params === undefined ? {} : value.params;
    if (!isRecord(params)) return `a "${method}" message whose params are not an object`;
    if (!hasId) return { kind: 'notification', method, params };
    if (id === undefined) return `a "${method}" request whose id is not a string or an integer`;
    return { kind: 'request', id, method, params };
  }
  if ('error' in value && value.error !== undefined) {
    const error = value.error;
    if (!isRecord(error)) return 'an error reply whose error is not an object';
    const code = typeof error.code === 'number' && Number.isInteger(error.code) ? error.code : undefined;
    if (code === undefined) return 'an error reply without an integer code';
    const message = typeof error.message === 'string' ? error.message : '';
    // A reply to a request the server could not read has a null id.
    if (value.id !== null && id === undefined) return 'an error reply whose id is not a string or an integer';
    return {
      kind: 'error',
      id: id ?? null,
      code,
      message: ownSlice(clean(message), MAX_ERROR_MESSAGE_CHARS) || '(no message)',
    };
  }
  if ('result' in value) {
    if (id === undefined) return 'a reply whose id is not a string or an integer';
    if (!isRecord(value.result)) return 'a reply whose result is not an object';
    return { kind: 'result', id, result: value.result };
  }
  return 'a message that is neither a request, a notification nor a reply';
}

function parseId(value: unknown): JsonRpcId | undefined {
  if (typeof value === 'string') return value.length <= MAX_ID_CHARS ? value : undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  return undefined;
}

/** What `initialize` agreed: the version (one we speak) and the server's name. */
export interface McpInitialized {
  protocolVersion: string;
  serverName: string;
}

/** The server's `initialize` result, or why it cannot be used. */
export function parseInitializeResult(result: Record<string, unknown>): McpInitialized | string {
  const version = result.protocolVersion;
  if (typeof version !== 'string') return 'its initialize reply names no protocol version';
  if (!MCP_PROTOCOL_VERSIONS.includes(version))
    return `its protocol version "${clean(version).slice(0, 40)}" is not one this client speaks (${MCP_PROTOCOL_VERSIONS.join(', ')})`;
  if (result.capabilities !== undefined && !isRecord(result.capabilities))
    return 'its initialize reply has capabilities that are not an object';
  const info = result.serverInfo;
  const name = isRecord(info) && typeof info.name === 'string' ? ownSlice(clean(info.name), 100) : '';
  return { protocolVersion: version, serverName: name };
}

/** One page of `tools/list`: the raw entries (parsed by `parseExternalTools`) and the next cursor. */
export function parseToolsPage(
  result: Record<string, unknown>,
): { tools: unknown[]; nextCursor: string | undefined } | string {
  if (!Array.isArray(result.tools)) return 'its tools/list reply has no tools array';
  const cursor = result.nextCursor;
  if (cursor !== undefined && cursor !== null && typeof cursor !== 'string')
    return 'its tools/list reply has a cursor that is not a string';
  if (typeof cursor === 'string' && cursor.length > 1_000) return 'its tools/list cursor is too long';
  return { tools: result.tools as unknown[], nextCursor: cursor || undefined };
}

/** Control characters out, for text a server chose that ends up in a message. */
function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, ' ').trim();
}

/** The start of a text, for a message about it. */
export function preview(text: string): string {
  const start = clean(text.slice(0, 80));
  return text.length > 80 ? `${start}…` : start || 'empty';
}
