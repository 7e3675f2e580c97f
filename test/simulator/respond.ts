/** Small HTTP helpers of the simulator. */
import type { IncomingMessage, ServerResponse } from 'node:http';

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
}

/** An error in the OpenRouter shape: `{error: {message, code, metadata}}`. */
export function sendError(
  response: ServerResponse,
  status: number,
  message: string,
  options: { metadata?: Record<string, unknown>; headers?: Record<string, string> } = {},
): void {
  const error: Record<string, unknown> = { message, code: status };
  if (options.metadata) error.metadata = options.metadata;
  sendJson(response, status, { error }, options.headers);
}

export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    request.on('data', (part: Buffer) => parts.push(part));
    request.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    request.on('error', reject);
  });
}

export function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
