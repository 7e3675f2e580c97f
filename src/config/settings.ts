import * as vscode from 'vscode';

/** Every setting of the extension, typed, read through one accessor (`readSettings`). */
export interface GatewaySettings {
  baseUrl: string;
  chat: {
    model: string;
    models: string[];
    systemPrompt: string;
    temperature: number | undefined;
    maxTokens: number | undefined;
    reasoningEffort: 'default' | 'none' | 'minimal' | 'low' | 'medium' | 'high';
    responseFormat: 'text' | 'json_object';
    webSearch: boolean;
    provider: Record<string, unknown> | undefined;
    plugins: Record<string, unknown>[];
    tools: Record<string, unknown>[];
  };
  media: {
    model: string;
    parameters: Record<string, unknown>;
    maxConcurrentPolls: number;
    maxPollIntervalSeconds: number;
  };
  request: {
    timeoutSeconds: number;
    streamIdleTimeoutSeconds: number;
    maxRetries: number;
  };
  proxy: {
    url: string | undefined;
    noProxy: string[];
    strictSSL: boolean;
  };
}

export const SECTION = 'gateway';
export const DEFAULT_BASE_URL = 'https://openrouter.ai/api';
const MODEL_ID = /^[^/\s]+\/\S+$/;

export function isModelId(value: unknown): value is string {
  return typeof value === 'string' && MODEL_ID.test(value.trim());
}

function num(value: unknown, min: number, max: number, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : fallback;
}

function optionalNum(value: unknown, min: number, max: number): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0
    ? (value as Record<string, unknown>)
    : undefined;
}

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => !!record(v)) : [];
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim()) : [];
}

const EFFORTS = ['default', 'none', 'minimal', 'low', 'medium', 'high'] as const;

/** Reads (and clamps) every setting. Cheap: call it at each use so a change applies at once. */
export function readSettings(): GatewaySettings {
  const c = vscode.workspace.getConfiguration(SECTION);
  const http = vscode.workspace.getConfiguration('http');
  const effort = c.get<string>('chat.reasoningEffort');
  const proxyUrl = http.get<string>('proxy')?.trim();
  return {
    baseUrl: (c.get<string>('baseUrl') ?? DEFAULT_BASE_URL).trim() || DEFAULT_BASE_URL,
    chat: {
      model: (c.get<string>('chat.model') ?? '').trim(),
      models: strings(c.get('chat.models')),
      systemPrompt: c.get<string>('chat.systemPrompt') ?? '',
      temperature: optionalNum(c.get('chat.temperature'), 0, 2),
      maxTokens: optionalNum(c.get('chat.maxTokens'), 1, Number.MAX_SAFE_INTEGER),
      reasoningEffort: (EFFORTS as readonly string[]).includes(effort ?? '') ? (effort as GatewaySettings['chat']['reasoningEffort']) : 'default',
      responseFormat: c.get<string>('chat.responseFormat') === 'json_object' ? 'json_object' : 'text',
      webSearch: c.get<boolean>('chat.webSearch') === true,
      provider: record(c.get('chat.provider')),
      plugins: records(c.get('chat.plugins')),
      tools: records(c.get('chat.tools')),
    },
    media: {
      model: (c.get<string>('media.model') ?? '').trim(),
      parameters: record(c.get('media.parameters')) ?? {},
      maxConcurrentPolls: Math.round(num(c.get('media.maxConcurrentPolls'), 1, 16, 4)),
      maxPollIntervalSeconds: num(c.get('media.maxPollIntervalSeconds'), 5, 300, 30),
    },
    request: {
      timeoutSeconds: num(c.get('request.timeoutSeconds'), 1, 600, 30),
      streamIdleTimeoutSeconds: num(c.get('request.streamIdleTimeoutSeconds'), 5, 3600, 180),
      maxRetries: Math.round(num(c.get('request.maxRetries'), 0, 10, 3)),
    },
    proxy: {
      url: proxyUrl ? proxyUrl : undefined,
      noProxy: strings(http.get('noProxy')),
      strictSSL: http.get<boolean>('proxyStrictSSL') !== false,
    },
  };
}

/** Why the base URL cannot be used, or undefined when it is fine. */
export function validateBaseUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `The gateway base URL "${value}" is not a valid URL. Set "gateway.baseUrl" to something like ${DEFAULT_BASE_URL}.`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return `The gateway base URL must start with https:// (or http:// for a local gateway), not ${url.protocol}//.`;
  }
  if (url.search || url.hash) return 'The gateway base URL must not contain a query (?) or a fragment (#).';
  return undefined;
}

export function affectsGateway(event: vscode.ConfigurationChangeEvent): boolean {
  return event.affectsConfiguration(SECTION) || event.affectsConfiguration('http.proxy') || event.affectsConfiguration('http.noProxy');
}
