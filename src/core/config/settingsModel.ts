/**
 * Every setting of the extension, typed, and the one parser that turns what the configuration
 * holds (outside data: a hand-edited settings.json can hold anything) into these types. Pure: the
 * host's settings service hands in a getter over the values its policy lets in force
 * (settingsPolicy.ts), the unit tests a plain object.
 */
import { isRecord } from '../../api/json';
import { dialectSetting } from '../../api/dialects';
import type { DialectSetting } from '../../api/dialects';
import { redact } from '../../api/redact';
import { Setting, VsCodeSetting } from '../ids';
import { cleanRelativeFolder } from '../mediaStudio/resultNames';
import { excludePatterns } from '../inline/exclude';
import { isLoopbackHost } from './keyOrigin';
import { parseAuthHeaderForm, parseExtraHeaders } from './requestHeaders';
import type { AuthHeaderForm } from './requestHeaders';
import { isModelId, toModelId } from './modelId';
import type { SettingId } from '../ids';

/** Every setting of the extension, typed, read through one service (host/config/settingsService). */
export interface GatewaySettings {
  baseUrl: string;
  /** The kind of gateway (`gateway.dialect`): `auto` works it out from the gateway itself. */
  dialect: DialectSetting;
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
    /** Offer image attachments: as the catalog says (auto), or always/never. */
    imageInput: 'auto' | 'always' | 'never';
    /** Send reasoning, tools and response_format even to models the catalog says lack them. */
    forceParameters: boolean;
    /** Mark prompts for the provider's cache on models that need it (see core/cost/promptCache). */
    promptCaching: boolean;
    /** The model that summarises a long chat's oldest turns (empty: the chat's own model). */
    compactionModel: string;
  };
  languageModels: {
    /** Ids or globs (`!` excludes) of the models offered to VS Code's chat; empty: the chat models. */
    include: string[];
  };
  media: {
    model: string;
    parameters: Record<string, unknown>;
    maxConcurrentPolls: number;
    maxPollIntervalSeconds: number;
    /** Workspace-relative folder results are saved into; '' is the workspace root. */
    saveFolder: string;
    storageLimitMB: number;
    /** Model id or pattern (`openai/*`) → the parameter that carries a reference image. */
    referenceImageParameter: Record<string, string>;
    referenceImageAs: 'dataUrl' | 'url';
  };
  agent: {
    /** The chat panel offers tools to models that take them. */
    enabled: boolean;
    /** Most rounds of tool calls in one turn. */
    maxSteps: number;
    /** Tools that run without asking (application scope: a workspace cannot add to it). */
    alwaysAllow: string[];
    /** Default limit of a command the agent runs, in seconds. */
    commandTimeoutSeconds: number;
    /** Dollars one turn may spend before it pauses and asks (0: no cap). User settings only. */
    maxTurnCost: number;
    /** Dollars a day (all windows, all features) before a turn pauses and asks (0: no cap). */
    maxDailyCost: number;
    /** Read instruction files in Restricted Mode too. User settings only. */
    instructionsInRestrictedMode: boolean;
  };
  inlineCompletions: {
    enabled: boolean;
    /** '' : a fast code model chosen from the catalog. */
    model: string;
    mode: 'auto' | 'fim' | 'chat';
    /** Globs of files never sent. */
    exclude: string[];
    /** Language id → false: no completions there. */
    languages: Record<string, boolean>;
  };
  request: {
    timeoutSeconds: number;
    streamIdleTimeoutSeconds: number;
    maxRetries: number;
    /** Most megabytes one stream or download may bring. */
    maxResponseMegabytes: number;
    /** Most minutes one stream or download may take. */
    maxStreamMinutes: number;
    /** Extra headers for the gateway from `gateway.requestHeaders`, checked (secret ones are not taken). */
    headers: Record<string, string>;
    /** Why entries of `gateway.requestHeaders` were skipped, one line each (names, never values). */
    headerProblems: string[];
    /** How the key is sent (`gateway.authHeader`). */
    authHeader: AuthHeaderForm;
  };
  /** VS Code's `http.proxy`: its credentials are kept out of errors and the log (VS Code routes). */
  proxy: {
    url: string | undefined;
  };
}

export const DEFAULT_BASE_URL = 'https://openrouter.ai/api';
export const DEFAULT_SAVE_FOLDER = 'assets/generated';
export { isModelId, modelIdProblem, toModelId } from './modelId';

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function num(value: unknown, min: number, max: number, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(max, Math.max(min, value)) : fallback;
}

function optionalNum(value: unknown, min: number, max: number): number | undefined {
  return typeof value === 'number' && Number.isFinite(value)
    ? Math.min(max, Math.max(min, value))
    : undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return isRecord(value) && Object.keys(value).length > 0 ? value : undefined;
}

function records(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => !!record(v)) : [];
}

function strings(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim())
    : [];
}

const EFFORTS = ['default', 'none', 'minimal', 'low', 'medium', 'high'] as const;

/** Reads one setting by its full key, as `vscode.workspace.getConfiguration().get(key)` does. */
export type SettingsSource = (key: SettingId | (typeof VsCodeSetting)[keyof typeof VsCodeSetting]) => unknown;

/** Parses (and clamps) one section of the settings from the setting values it reads. */
type SectionParsers = { readonly [K in keyof GatewaySettings]: (get: SettingsSource) => GatewaySettings[K] };

/** Each section reads only its own settings, so a section can be parsed without the others. */
const SECTIONS: SectionParsers = {
  baseUrl: (get) => (str(get(Setting.baseUrl)) ?? DEFAULT_BASE_URL).trim() || DEFAULT_BASE_URL,
  dialect: (get) => dialectSetting(get(Setting.dialect)),
  chat: (get) => {
    const effort = str(get(Setting.chatReasoningEffort));
    return {
      model: toModelId(get(Setting.chatModel)) ?? '',
      models: strings(get(Setting.chatModels)).filter(isModelId),
      systemPrompt: str(get(Setting.chatSystemPrompt)) ?? '',
      temperature: optionalNum(get(Setting.chatTemperature), 0, 2),
      maxTokens: optionalNum(get(Setting.chatMaxTokens), 1, Number.MAX_SAFE_INTEGER),
      reasoningEffort: (EFFORTS as readonly string[]).includes(effort ?? '')
        ? (effort as GatewaySettings['chat']['reasoningEffort'])
        : 'default',
      responseFormat: str(get(Setting.chatResponseFormat)) === 'json_object' ? 'json_object' : 'text',
      webSearch: get(Setting.chatWebSearch) === true,
      provider: record(get(Setting.chatProvider)),
      plugins: records(get(Setting.chatPlugins)),
      tools: records(get(Setting.chatTools)),
      imageInput: imageInputMode(get(Setting.chatImageInput)),
      forceParameters: get(Setting.chatForceParameters) === true,
      promptCaching: get(Setting.chatPromptCaching) !== false,
      compactionModel: toModelId(get(Setting.chatCompactionModel)) ?? '',
    };
  },
  languageModels: (get) => ({ include: strings(get(Setting.languageModelsInclude)) }),
  media: (get) => ({
    model: toModelId(get(Setting.mediaModel)) ?? '',
    parameters: record(get(Setting.mediaParameters)) ?? {},
    maxConcurrentPolls: Math.round(num(get(Setting.mediaMaxConcurrentPolls), 1, 16, 4)),
    maxPollIntervalSeconds: num(get(Setting.mediaMaxPollIntervalSeconds), 5, 300, 30),
    saveFolder: cleanRelativeFolder(str(get(Setting.mediaSaveFolder)) ?? DEFAULT_SAVE_FOLDER),
    storageLimitMB: num(get(Setting.mediaStorageLimitMB), 0, 1_000_000, 500),
    referenceImageParameter: Object.fromEntries(
      Object.entries(record(get(Setting.mediaReferenceImageParameter)) ?? {}).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string',
      ),
    ),
    referenceImageAs: str(get(Setting.mediaReferenceImageAs)) === 'url' ? 'url' : 'dataUrl',
  }),
  agent: (get) => ({
    enabled: get(Setting.agentEnabled) !== false,
    maxSteps: Math.round(num(get(Setting.agentMaxSteps), 1, 200, 25)),
    commandTimeoutSeconds: Math.round(num(get(Setting.agentCommandTimeoutSeconds), 1, 3600, 120)),
    maxTurnCost: num(get(Setting.agentMaxTurnCost), 0, 1_000_000, 0),
    maxDailyCost: num(get(Setting.agentMaxDailyCost), 0, 1_000_000, 0),
    instructionsInRestrictedMode: get(Setting.agentInstructionsInRestrictedMode) === true,
    alwaysAllow: [...new Set(strings(get(Setting.agentAlwaysAllow)).filter((n) => n.length <= 200))].slice(
      0,
      200,
    ),
  }),
  inlineCompletions: (get) => ({
    enabled: get(Setting.inlineEnabled) === true,
    model: toModelId(get(Setting.inlineModel)) ?? '',
    mode: inlineMode(get(Setting.inlineMode)),
    // The defaults always apply: a workspace's settings may add patterns, never remove them.
    exclude: excludePatterns(strings(get(Setting.inlineExclude))),
    languages: Object.fromEntries(
      Object.entries(record(get(Setting.inlineLanguages)) ?? {}).filter(
        (entry): entry is [string, boolean] => typeof entry[1] === 'boolean',
      ),
    ),
  }),
  request: (get) => ({
    timeoutSeconds: num(get(Setting.requestTimeoutSeconds), 1, 600, 30),
    streamIdleTimeoutSeconds: num(get(Setting.requestStreamIdleTimeoutSeconds), 5, 3600, 180),
    maxRetries: Math.round(num(get(Setting.requestMaxRetries), 0, 10, 3)),
    maxResponseMegabytes: num(get(Setting.requestMaxResponseMegabytes), 1, 4096, 200),
    maxStreamMinutes: num(get(Setting.requestMaxStreamMinutes), 1, 240, 30),
    ...requestHeaders(get),
  }),
  proxy: (get) => {
    const proxyUrl = str(get(VsCodeSetting.proxy))?.trim();
    return {
      url: proxyUrl ? proxyUrl : undefined,
    };
  },
};

const SECTION_NAMES = Object.keys(SECTIONS) as Array<keyof GatewaySettings>;

/** Parses (and clamps) every setting; never throws: a value of the wrong type becomes its default. */
export function parseSettings(get: SettingsSource): GatewaySettings {
  return Object.fromEntries(
    SECTION_NAMES.map((name) => [name, SECTIONS[name](get)]),
  ) as unknown as GatewaySettings;
}

/**
 * The same settings, each section parsed on its first read (then kept): only the settings of the
 * sections something reads are asked of `get`. Spreading it or writing it as JSON reads every section.
 */
export function parseSettingsLazily(get: SettingsSource): GatewaySettings {
  const settings = {} as GatewaySettings;
  for (const name of SECTION_NAMES) {
    let parsed: { value: unknown } | undefined;
    Object.defineProperty(settings, name, {
      enumerable: true,
      get: () => (parsed ??= { value: SECTIONS[name](get) }).value,
    });
  }
  return Object.freeze(settings);
}

function requestHeaders(
  get: SettingsSource,
): Pick<GatewaySettings['request'], 'headers' | 'headerProblems' | 'authHeader'> {
  const authHeader = parseAuthHeaderForm(get(Setting.authHeader));
  const parsed = parseExtraHeaders(get(Setting.requestHeaders), {
    auth: authHeader,
    secretsAllowed: false,
    what: `header of "${Setting.requestHeaders}"`,
  });
  return { headers: parsed.headers, headerProblems: parsed.problems, authHeader };
}

function inlineMode(value: unknown): GatewaySettings['inlineCompletions']['mode'] {
  return value === 'fim' || value === 'chat' ? value : 'auto';
}

function imageInputMode(value: unknown): GatewaySettings['chat']['imageInput'] {
  return value === 'always' || value === 'never' ? value : 'auto';
}

/**
 * Why the base URL cannot be used, or undefined when it is fine. The key goes to its origin, so:
 * https, or plain http only to this computer (a loopback gateway); no user name or password in
 * it (`https://openrouter.ai@other.host/` is other.host); no query or fragment.
 */
export function validateBaseUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `The gateway base URL "${redact(value)}" is not a valid URL. Set "${Setting.baseUrl}" to something like ${DEFAULT_BASE_URL}.`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    return `The gateway base URL must start with https:// (or http:// for a gateway on this computer), not ${url.protocol}//.`;
  }
  if (url.username || url.password) {
    return `The gateway base URL must not contain a user name or password (the part before "@"): the host it names is ${url.host}. Set "${Setting.baseUrl}" to the gateway's own address.`;
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    return `The gateway base URL must use https:// for ${url.host}: plain http:// is allowed only for a gateway on this computer (localhost, 127.0.0.1, [::1]), since your API key goes with every request.`;
  }
  if (url.search || url.hash) return 'The gateway base URL must not contain a query (?) or a fragment (#).';
  return undefined;
}
