/**
 * Connect a Gateway, without I/O: what a pasted URL means, which local servers to look for, and
 * the short list of what a gateway offers, shown before a key is asked for. The list is read off
 * the gateway's dialect record (src/api/dialects.ts) and what its catalog answered, so it says the
 * same as what the client will then do.
 */
import type { Dialect, MediaRoute } from '../../api/types';
import { validateBaseUrl } from '../config/settingsModel';

/** Servers people run on their own computer, at their usual addresses, asked without a key. */
export const LOCAL_SERVERS: ReadonlyArray<{ label: string; baseUrl: string }> = [
  { label: 'Ollama', baseUrl: 'http://127.0.0.1:11434/v1' },
  { label: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1' },
  { label: 'vLLM', baseUrl: 'http://127.0.0.1:8000/v1' },
  { label: 'llama.cpp', baseUrl: 'http://127.0.0.1:8080/v1' },
];

/** The most characters of a pasted URL we look at. */
const MAX_URL_LENGTH = 2048;

/**
 * A pasted gateway URL as a base URL, or the reason it cannot be one (the base URL setting's own
 * rules: https, or http for this computer only; no credentials, query or fragment). `…/v1`,
 * `…/api/v1` and a trailing `/` are fine: the client finds the API under them.
 */
export function parsePastedGatewayUrl(text: string): { baseUrl: string } | { problem: string } {
  const trimmed = text.trim();
  if (!trimmed) return { problem: 'Paste the URL of your gateway.' };
  if (trimmed.length > MAX_URL_LENGTH) return { problem: 'That URL is too long to be a gateway.' };
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/[\u0000-\u001f\u007f\s]/.test(trimmed))
    return { problem: 'A URL has no spaces or control characters.' };
  const problem = validateBaseUrl(trimmed);
  if (problem) return { problem };
  const url = new URL(trimmed);
  return { baseUrl: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}

/** What asking the gateway's model list without a key found out. */
export interface GatewayProbe {
  dialect: Dialect;
  /** It answered the model list without a key. */
  answeredWithoutKey: boolean;
  /** Chat models it listed (undefined: the list needs a key). */
  chatModels?: number;
  /** Media models it listed. */
  mediaModels?: number;
}

/** Whether a key must be asked for: the list needed one, or the gateway's kind always does. */
export function needsKey(probe: GatewayProbe): boolean {
  if (!probe.answeredWithoutKey) return true;
  return !probe.dialect.keyOptional;
}

/** Headers a kind of gateway needs on every request, offered during Connect. */
export function headersNeeded(dialect: Dialect): string[] {
  return dialect.kind === 'portkey' ? ['x-portkey-provider'] : [];
}

const ROUTE_NAMES: Record<MediaRoute, string> = {
  media: 'media jobs (/v1/media)',
  images: 'images (/v1/images)',
  videos: 'videos (/v1/videos)',
  'chat-images': 'images from chat models',
  'images-generations': 'images (/v1/images/generations)',
};

/** The short list shown before a key is asked for: one line each, plain text. */
export function capabilityLines(probe: GatewayProbe): string[] {
  const { dialect } = probe;
  const lines = [`Kind: ${dialect.label}.`];
  lines.push(
    probe.chatModels === undefined
      ? 'Chat models: listed once a key is set.'
      : `Chat models: ${probe.chatModels} listed.`,
  );
  lines.push(
    dialect.catalog.supportedParameters
      ? 'Tools (the agent): for the models whose catalog entry lists them; offered where it says nothing.'
      : 'Tools (the agent): offered to every model; a model that refuses them has them turned off, with a note.',
  );
  lines.push(`Cost: ${costLine(dialect)}`);
  const routes = dialect.mediaRoutes.map((route) => ROUTE_NAMES[route]);
  lines.push(
    routes.length
      ? `Media: ${routes.join(', ')}${probe.mediaModels !== undefined ? `; ${probe.mediaModels} media models listed` : ''}.`
      : 'Media: none on this kind of gateway.',
  );
  lines.push('Inline completions: any chat model; fill-in-the-middle where the model takes it.');
  lines.push(
    needsKey(probe)
      ? 'Key: needed; it is kept in secret storage and sent only to this gateway.'
      : 'Key: not needed.',
  );
  const headers = headersNeeded(dialect);
  if (headers.length) lines.push(`Headers: needs ${headers.join(', ')} on every request (asked next).`);
  return lines;
}

function costLine(dialect: Dialect): string {
  const [first] = dialect.cost;
  switch (first) {
    case 'usage.cost':
      return dialect.cost.includes('catalog-price')
        ? 'read from each reply where the gateway reports it, else tokens × the catalog price.'
        : 'reported with each reply.';
    case 'generation':
      return 'looked up after each reply.';
    case 'header':
      return `reported in the ${dialect.costHeader ?? 'cost'} header of each reply.`;
    case 'catalog-price':
      return 'not reported; counted as tokens × the catalog price where it has one, else as tokens.';
    case undefined:
      return 'none (a local server is free).';
  }
}
