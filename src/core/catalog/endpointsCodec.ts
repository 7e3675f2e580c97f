/**
 * The boundary for `GET /v1/models/{id}/endpoints` (OpenRouter shape: `data.endpoints[]`), the
 * upstream providers that serve one model. Pure: any JSON in, our own types out, never throws.
 * An endpoint without a provider name is skipped; a field of the wrong type is left out.
 */
import { isRecord } from '../../api/json';
import { price, words } from './catalogCodec';

export interface ModelEndpoint {
  /** The provider's display name, which `provider.only`/`ignore` take (e.g. "DeepInfra"). */
  providerName: string;
  /** The endpoint's own tag (e.g. "deepinfra/fp8"), when given. */
  tag?: string;
  contextLength?: number;
  quantization?: string;
  /** USD per token. */
  pricing?: { prompt: number; completion: number };
  supportedParameters: string[];
  /** 0 is up; negative values are degraded or down (OpenRouter's convention). */
  status?: number;
  /** Percentage of requests that succeeded in the last 30 minutes. */
  uptimeLast30m?: number;
}

const MAX_ENDPOINTS = 100;
const MAX_TEXT = 100;

/** The endpoints listed, or undefined when the answer has another shape. */
export function parseEndpoints(value: unknown): ModelEndpoint[] | undefined {
  const data = isRecord(value) ? value.data : undefined;
  const list = isRecord(data) ? data.endpoints : Array.isArray(data) ? data : undefined;
  if (!Array.isArray(list)) return undefined;
  const endpoints: ModelEndpoint[] = [];
  for (const entry of list) {
    if (endpoints.length >= MAX_ENDPOINTS) break;
    const endpoint = parseEndpoint(entry);
    if (endpoint) endpoints.push(endpoint);
  }
  return endpoints;
}

function parseEndpoint(entry: unknown): ModelEndpoint | undefined {
  if (!isRecord(entry)) return undefined;
  const providerName = text(entry.provider_name);
  if (!providerName) return undefined;
  const endpoint: ModelEndpoint = { providerName, supportedParameters: words(entry.supported_parameters) };
  const tag = text(entry.tag);
  if (tag) endpoint.tag = tag;
  const quantization = text(entry.quantization);
  if (quantization) endpoint.quantization = quantization;
  if (typeof entry.context_length === 'number' && Number.isSafeInteger(entry.context_length))
    if (entry.context_length > 0) endpoint.contextLength = entry.context_length;
  const pricing = isRecord(entry.pricing) ? entry.pricing : undefined;
  const prompt = price(pricing?.prompt);
  const completion = price(pricing?.completion);
  if (prompt !== undefined && completion !== undefined) endpoint.pricing = { prompt, completion };
  if (typeof entry.status === 'number' && Number.isFinite(entry.status)) endpoint.status = entry.status;
  const uptime = entry.uptime_last_30m;
  if (typeof uptime === 'number' && Number.isFinite(uptime) && uptime >= 0 && uptime <= 100)
    endpoint.uptimeLast30m = uptime;
  return endpoint;
}

/** One line of printable text, trimmed; undefined for anything else or too long. */
function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  // eslint-disable-next-line no-control-regex
  const line = value.replace(/[\u0000-\u001f\u007f\s]+/g, ' ').trim();
  return line && line.length <= MAX_TEXT ? line : undefined;
}

/** The distinct provider names, in the order listed. */
export function providerNames(endpoints: readonly ModelEndpoint[]): string[] {
  return [...new Set(endpoints.map((e) => e.providerName))];
}
