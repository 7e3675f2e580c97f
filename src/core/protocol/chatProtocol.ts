/**
 * The one message protocol between the chat view's host (extension) and its webview. Both sides
 * import this file; it imports only pure helpers, so it bundles into the browser and into Node alike.
 *
 * Every message that crosses is validated on arrival (`parseWebviewMessage` on the host side,
 * `parseHostMessage` on the webview side): the webview is a separate, less trusted context.
 */

import { isRecord } from '../../api/json';
import { isModelId } from '../config/modelId';
import { MAX_TOKEN_COUNT, MAX_USD } from '../../api/types';
import type { Attachment, AttachmentKind } from '../chat/attachments';
import type { FileSuggestion } from '../chat/fileMention';
import { parseChatTools, parseEffort, parseRouting, providerList } from '../catalog/modelOptions';
import type { ChatTools, Routing } from '../catalog/modelOptions';
import type { AgentProgress, AgentStep } from '../agent/types';
import { MAX_CARD_RESULT_CHARS } from '../agent/types';
import {
  parseAgentHostMessage,
  parseAgentProgress,
  parseAgentSteps,
  parseAgentWebviewMessage,
} from './agentProtocol';
import type { AgentHostMessage, AgentWebviewMessage } from './agentProtocol';
import { parseMediaAction, parseMediaCardRef, parseMediaCardState } from './mediaCardProtocol';
import { isCheckpointId, isId } from './protocolFields';
import { parseModeWebviewMessage, parseModesState } from './modeProtocol';
import type { ModeHostMessage, ModeWebviewMessage } from './modeProtocol';

/** Longest note on why a prompt has no checkpoint. */
const MAX_CHECKPOINT_NOTE_CHARS = 500;
import type { MediaCardAction, MediaCardRef, MediaCardState } from './mediaCardProtocol';

export type TurnStatus = 'streaming' | 'complete' | 'stopped' | 'error';

/** What the user can do about an error, offered as a button beside it. */
export type ErrorAction = 'setApiKey' | 'retry' | 'openSettings' | 'selectModel' | 'addCredits';

export interface TurnError {
  message: string;
  /** HTTP status, when the gateway answered. */
  status?: number;
  provider?: string;
  /** Seconds to wait before retrying (429). */
  retryAfter?: number;
  actions: ErrorAction[];
}

export interface TurnUsage {
  promptTokens?: number;
  completionTokens?: number;
  reasoningTokens?: number;
  totalTokens?: number;
  /**
   * In the gateway's credits (usually USD), as the gateway reported it; absent when it did not
   * (then "cost not reported", never $0). A real 0 is a free model.
   */
  cost?: number;
  /** USD from tokens × the catalog's prices, when the gateway reported no cost: said as estimated. */
  estimatedCost?: number;
  /** Prompt tokens read from the provider's cache, and written to it. */
  cachedTokens?: number;
  cacheWriteTokens?: number;
  /** USD prompt caching saved on this reply (negative: writing the cache cost more). */
  cacheSavings?: number;
}

export interface ToolCallView {
  id?: string;
  name: string;
  arguments: string;
}

export interface Citation {
  url: string;
  title?: string;
}

export interface UserTurn {
  id: string;
  role: 'user';
  content: string;
  createdAt: number;
  /** What the prompt carried (text attachments with their text; images by their stored file). */
  attachments?: Attachment[];
  /** Kept and shown, but left out of what is sent, so the conversation fits the model's context. */
  leftOut?: boolean;
  /** The workspace snapshot taken as the prompt's reply began: what *Restore to here* puts back. */
  checkpoint?: string;
  /** The snapshot taken just before the last *Restore to here*: what *Redo* puts back. */
  redoCheckpoint?: string;
  /** Why the prompt has no checkpoint (git missing, the time budget ran out…). */
  checkpointNote?: string;
}

/** A chip above the composer: what will go with the next prompt. */
export interface AttachmentChip {
  id: string;
  kind: Attachment['kind'];
  name: string;
  bytes: number;
  tokens: number;
}

/** The context meter: the conversation plus pending attachments against the model's context. */
export interface ContextState {
  attachments: AttachmentChip[];
  usedTokens: number;
  /** The model's context, when the catalog says. */
  contextLength?: number;
  /** Whether the model takes images (offered in the composer only then). */
  acceptsImages: boolean;
  /** The conversation's total cost so far, in the gateway's credits (usually USD). */
  cost?: number;
  /** Part of `cost` is estimated from tokens × the catalog's prices (the gateway reported none). */
  costEstimated?: boolean;
  /** Some replies carried neither a cost nor a price to estimate one: `cost` leaves them out. */
  costUnreported?: boolean;
  /** What prompt caching saved in this conversation so far, in USD. */
  saved?: number;
}

/** A project instruction file a turn carried (AGENTS.md, a rules file), as its chip shows it. */
export interface InstructionChip {
  /** Workspace-relative. */
  path: string;
  /** Sent always, or because a file it matches was attached, read or edited in the turn. */
  reason: 'always' | 'matched';
  tokens: number;
  /** Only its start went: the instruction files' token budget ran out. */
  cut?: boolean;
  /** None of it went: the budget had run out. */
  dropped?: boolean;
}

export interface AssistantTurn {
  id: string;
  role: 'assistant';
  content: string;
  reasoning: string;
  status: TurnStatus;
  model: string;
  provider?: string;
  createdAt: number;
  finishReason?: string;
  usage?: TurnUsage;
  toolCalls?: ToolCallView[];
  citations?: Citation[];
  error?: TurnError;
  /** Kept and shown, but left out of what is sent, so the conversation fits the model's context. */
  leftOut?: boolean;
  /** A media job started from the chat (`/image …`): the turn shows the job's card. */
  media?: MediaCardRef;
  /**
   * The agent loop's rounds before the final answer (`content`): each with its text and the
   * tool calls it made, exactly as they went to and came from the gateway.
   */
  steps?: AgentStep[];
  /** The loop's running totals (steps, tokens, cost). */
  agent?: AgentProgress;
  /** Workspace files the turn changed or created (what *Undo this turn* restores). */
  edited?: string[];
  /** *Undo this turn* restored them. */
  undone?: boolean;
  /** The project instruction files the turn carried, in the order they went. */
  instructions?: InstructionChip[];
  /** Answered in Plan mode: the view offers to hand the plan to Agent. */
  plan?: boolean;
}

export type Turn = UserTurn | AssistantTurn;

export interface ConversationSummary {
  id: string;
  title: string;
  updatedAt: number;
  turnCount: number;
}

export interface ConversationView {
  id: string;
  title: string;
  turns: Turn[];
}

/**
 * The summary sent in place of a chat's oldest turns (they stay in the chat, and are shown; only
 * what is sent changes): it covers the turns up to and including `throughTurnId`.
 */
export interface Compaction {
  summary: string;
  throughTurnId: string;
  /** How many turns it covers. */
  turns: number;
  /** The model that wrote it. */
  model: string;
  createdAt: number;
}

/** Longest summary a message or a stored chat may carry. */
export const MAX_COMPACTION_CHARS = 20_000;

/** A compaction from outside (a stored chat, a host message), or undefined when it is not one. */
export function parseCompaction(value: unknown): Compaction | undefined {
  if (!isRecord(value) || !isId(value.throughTurnId) || !isText(value.summary, MAX_COMPACTION_CHARS))
    return undefined;
  const turns = value.turns;
  const createdAt = value.createdAt;
  return {
    summary: value.summary,
    throughTurnId: value.throughTurnId,
    turns: typeof turns === 'number' && Number.isSafeInteger(turns) && turns > 0 ? turns : 1,
    model: isText(value.model, 300) ? value.model : '',
    createdAt: typeof createdAt === 'number' && Number.isFinite(createdAt) && createdAt >= 0 ? createdAt : 0,
  };
}

/** The model menu's state: the current model's efforts and routing, and the chat's tools. */
export interface ModelOptionsState {
  model: string;
  /** The efforts the catalog lists for the model (none: it cannot reason, or nothing is known). */
  efforts: string[];
  defaultEffort?: string;
  /** The effort chosen for this model; absent: the setting's, else the model's default. */
  effort?: string;
  routing: Routing;
  /** Providers that serve the model (from the gateway's endpoints list), for only/ignore. */
  providers: string[];
  /** `gateway.chat.provider` is set: it is sent instead of the routing choices. */
  providerSetting: boolean;
  tools: ChatTools;
  /** `gateway.chat.plugins` is set: it is sent instead of the tool choices. */
  pluginsSetting: boolean;
}

/** A prompt sent while a reply streams, waiting its turn. */
export interface QueuedPrompt {
  id: string;
  text: string;
}

// ---------------------------------------------------------------------------------------------
// Host → webview

export type HostMessage =
  /** The whole state: sent after `ready`, and when the conversation is switched. */
  | {
      type: 'init';
      conversation: ConversationView;
      model: string;
      hasApiKey: boolean;
      history: ConversationSummary[];
    }
  | { type: 'turnAdded'; turn: Turn }
  /** Text merged in the host since the last post (at most one post per animation frame). */
  | { type: 'turnDelta'; id: string; content?: string; reasoning?: string }
  /** A turn's final or changed state (status, usage, error, tool calls, ...). */
  | { type: 'turnUpdated'; turn: Turn }
  | { type: 'turnsRemoved'; ids: string[] }
  | { type: 'model'; model: string }
  | { type: 'apiKey'; hasApiKey: boolean }
  /**
   * Restricted Mode (an untrusted workspace): the chat answers, but the agent only reads, MCP
   * servers do not start and the workspace's settings are ignored; the panel says so.
   */
  | { type: 'workspaceTrust'; restricted: boolean }
  | { type: 'history'; items: ConversationSummary[] }
  /** Put text into the composer (e.g. to edit the last prompt). */
  | { type: 'setComposer'; text: string }
  | { type: 'focusComposer' }
  /** The prompts waiting for the streaming reply to end, oldest first (the whole list each time). */
  | { type: 'queue'; items: QueuedPrompt[] }
  /** A media card's job changed (or is sent after `init` for each card of the conversation). */
  | { type: 'mediaJob'; job: MediaCardState }
  /** A prompt the host refused (e.g. `/video` with a model that makes no video): shown at the composer, whose text stays. */
  | { type: 'composerNotice'; message: string }
  /** The chat's summary of its oldest turns (sent after `init` and when it changes); absent: none. */
  | { type: 'compaction'; compaction?: Compaction }
  /** Attachments waiting to be sent, and the context meter's and the cost's figures. */
  | ({ type: 'context' } & ContextState)
  /** Workspace files for a `#file:` mention, answering `findFiles` with the same query. */
  | { type: 'fileSuggestions'; query: string; files: FileSuggestion[] }
  /** The model menu's choices for the current model and chat. */
  | ({ type: 'modelOptions' } & ModelOptionsState)
  | AgentHostMessage
  | ModeHostMessage;

// ---------------------------------------------------------------------------------------------
// Webview → host

export type WebviewMessage =
  | { type: 'ready' }
  /** Sends a prompt; while a reply streams it is queued and sent when the reply ends. */
  | { type: 'send'; text: string }
  | { type: 'stop' }
  /** Replaces the text of a queued prompt. */
  | { type: 'editQueued'; id: string; text: string }
  | { type: 'removeQueued'; id: string }
  /** Retry the assistant turn with this id (a failed or stopped one). */
  | { type: 'retry'; turnId: string }
  /** Replace the user turn with this id (and everything after it) by `text`, and send it. */
  | { type: 'editAndResend'; turnId: string; text: string }
  | { type: 'copy'; text: string }
  | { type: 'insertCode'; code: string }
  | { type: 'openCode'; code: string; language?: string }
  | { type: 'openLink'; href: string }
  | { type: 'setApiKey' }
  | { type: 'selectModel' }
  | { type: 'openSettings' }
  /** The Restricted Mode notice's button: VS Code's workspace trust editor. */
  | { type: 'manageTrust' }
  /** A 402's "Add Credits": the gateway's credits page, where we know it. */
  | { type: 'addCredits' }
  | { type: 'newChat' }
  | { type: 'openConversation'; id: string }
  | { type: 'deleteConversation'; id: string }
  | { type: 'exportConversation' }
  | { type: 'removeAttachment'; id: string }
  /** An image pasted or dropped, already scaled down; `data` is base64. */
  | { type: 'attachImage'; name: string; mimeType: string; data: string }
  /** Files dropped from the Explorer or editor tabs (`text/uri-list`). */
  | { type: 'attachUris'; uris: string[] }
  | { type: 'attachFile' }
  /**
   * The context meter's "Drop oldest turns": leave just enough of the oldest turns out of what
   * is sent that the conversation and a prompt of `promptTokens` fit (they stay in the chat).
   */
  | { type: 'leaveOutOldestTurns'; promptTokens: number }
  /** Send the turns that were left out again. */
  | { type: 'includeLeftOutTurns' }
  /** A `#file:` mention is being typed: which workspace files match `query`. */
  | { type: 'findFiles'; query: string }
  /** A button on a media card: Open, Save to Workspace, Insert, Copy Path, Re-run, Variation. */
  | { type: 'mediaAction'; action: MediaCardAction; jobId: string }
  /** The reasoning effort for `model`; absent: back to the default. */
  | { type: 'setEffort'; model: string; effort?: string }
  /** The routing choices for `model`, sent as the request's `provider`. */
  | { type: 'setRouting'; model: string; routing: Routing }
  /** Web search, PDF parsing and context compression for the open chat. */
  | { type: 'setChatTools'; tools: ChatTools }
  | AgentWebviewMessage
  | ModeWebviewMessage;

export const ERROR_ACTIONS: readonly ErrorAction[] = [
  'setApiKey',
  'retry',
  'openSettings',
  'selectModel',
  'addCredits',
];

/** The message a button offered beside an error sends: each action is its own intent. */
export function errorActionMessage(action: ErrorAction, turnId: string): WebviewMessage {
  return action === 'retry' ? { type: 'retry', turnId } : { type: action };
}

/** Longest text accepted from the webview in one message (a prompt, a code block to copy). */
export const MAX_WEBVIEW_TEXT = 1_000_000;
/** Base64 of the largest image the webview may post (about 15 MB of bytes). */
export const MAX_IMAGE_MESSAGE = 20_000_000;

type Rec = Record<string, unknown>;

function isText(value: unknown, max = MAX_WEBVIEW_TEXT): value is string {
  return typeof value === 'string' && value.length <= max;
}

/**
 * Validates a message from the webview. Returns it typed, or `undefined` for anything malformed
 * (which the host ignores and logs).
 */
export function parseWebviewMessage(value: unknown): WebviewMessage | undefined {
  if (!isRecord(value) || typeof value.type !== 'string') return undefined;
  const m = value as Rec & { type: WebviewMessage['type'] };
  switch (m.type) {
    case 'ready':
    case 'stop':
    case 'setApiKey':
    case 'selectModel':
    case 'openSettings':
    case 'manageTrust':
    case 'addCredits':
    case 'newChat':
    case 'exportConversation':
    case 'attachFile':
    case 'includeLeftOutTurns':
      return { type: m.type };
    case 'findFiles':
      return isText(m.query, 500) ? { type: 'findFiles', query: m.query } : undefined;
    case 'leaveOutOldestTurns':
      return typeof m.promptTokens === 'number' &&
        Number.isSafeInteger(m.promptTokens) &&
        m.promptTokens >= 0 &&
        m.promptTokens <= MAX_WEBVIEW_TEXT
        ? { type: 'leaveOutOldestTurns', promptTokens: m.promptTokens }
        : undefined;
    case 'removeAttachment':
      return isId(m.id) ? { type: 'removeAttachment', id: m.id } : undefined;
    case 'attachImage':
      return isText(m.name, 300) &&
        typeof m.mimeType === 'string' &&
        /^image\/(png|jpeg|webp|gif)$/.test(m.mimeType) &&
        typeof m.data === 'string' &&
        m.data.length <= MAX_IMAGE_MESSAGE &&
        /^[A-Za-z0-9+/]*={0,2}$/.test(m.data)
        ? { type: 'attachImage', name: m.name, mimeType: m.mimeType, data: m.data }
        : undefined;
    case 'attachUris':
      return Array.isArray(m.uris) &&
        m.uris.length <= 100 &&
        m.uris.every((u): u is string => isText(u, 4096))
        ? { type: 'attachUris', uris: m.uris }
        : undefined;
    case 'send':
      return isText(m.text) ? { type: 'send', text: m.text } : undefined;
    case 'editQueued':
      return isId(m.id) && isText(m.text) ? { type: 'editQueued', id: m.id, text: m.text } : undefined;
    case 'removeQueued':
      return isId(m.id) ? { type: 'removeQueued', id: m.id } : undefined;
    case 'retry':
      return isId(m.turnId) ? { type: 'retry', turnId: m.turnId } : undefined;
    case 'editAndResend':
      return isId(m.turnId) && isText(m.text)
        ? { type: 'editAndResend', turnId: m.turnId, text: m.text }
        : undefined;
    case 'copy':
      return isText(m.text) ? { type: 'copy', text: m.text } : undefined;
    case 'insertCode':
      return isText(m.code) ? { type: 'insertCode', code: m.code } : undefined;
    case 'openCode':
      if (!isText(m.code)) return undefined;
      if (m.language !== undefined && !isText(m.language, 100)) return undefined;
      return m.language === undefined
        ? { type: 'openCode', code: m.code }
        : { type: 'openCode', code: m.code, language: m.language };
    case 'openLink':
      return isText(m.href, 8192) ? { type: 'openLink', href: m.href } : undefined;
    case 'openConversation':
    case 'deleteConversation':
      return isId(m.id) ? { type: m.type, id: m.id } : undefined;
    case 'mediaAction':
      return parseMediaAction(m);
    case 'setEffort': {
      if (!isModelId(m.model)) return undefined;
      if (m.effort === undefined) return { type: 'setEffort', model: m.model };
      const effort = parseEffort(m.effort);
      return effort ? { type: 'setEffort', model: m.model, effort } : undefined;
    }
    case 'setRouting':
      return isModelId(m.model) && isRecord(m.routing)
        ? { type: 'setRouting', model: m.model, routing: parseRouting(m.routing) }
        : undefined;
    case 'setChatTools':
      return isRecord(m.tools) ? { type: 'setChatTools', tools: parseChatTools(m.tools) } : undefined;
    case 'toolDecision':
    case 'openToolDiff':
    case 'undoTurn':
    case 'restoreCheckpoint':
    case 'redoCheckpoint':
    case 'setAgentTools':
    case 'setToolSource':
    case 'agentPauseDecision':
      return parseAgentWebviewMessage(m);
    case 'setMode':
    case 'runPlan':
      return parseModeWebviewMessage(m);
    default: {
      const unknownType: never = m.type;
      void unknownType;
      return undefined;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Host → webview validation

/**
 * Called once per field that was dropped or replaced while parsing a host message, with its
 * path (`turn.usage.cost`); the webview logs them together, once per message.
 */
export type ReportProblem = (path: string) => void;

const TURN_STATUSES: readonly TurnStatus[] = ['streaming', 'complete', 'stopped', 'error'];

/** A number JSON can carry that makes sense as a count, a time or an amount. */
function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** Longest wait shown as a countdown beside an error (a day). */
const MAX_RETRY_AFTER_S = 86_400;

class FieldReader {
  constructor(
    private readonly record: Rec,
    private readonly path: string,
    private readonly report: ReportProblem,
  ) {}

  private wrong(name: string): void {
    this.report(this.path ? `${this.path}.${name}` : name);
  }

  /** A string field; absent is fine, any other type is reported and treated as absent. */
  optionalString(name: string): string | undefined {
    const value = this.record[name];
    if (value === undefined) return undefined;
    if (typeof value === 'string') return value;
    this.wrong(name);
    return undefined;
  }

  string(name: string, fallback: string): string {
    const value = this.record[name];
    if (typeof value === 'string') return value;
    this.wrong(name);
    return fallback;
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.record[name];
    if (typeof value === 'boolean') return value;
    this.wrong(name);
    return fallback;
  }

  optionalBoolean(name: string): boolean | undefined {
    const value = this.record[name];
    if (value === undefined) return undefined;
    if (typeof value === 'boolean') return value;
    this.wrong(name);
    return undefined;
  }

  optionalNumber(name: string, min = -Infinity, max = Infinity): number | undefined {
    const value = this.record[name];
    if (value === undefined) return undefined;
    if (isFiniteNumber(value) && value >= min && value <= max) return value + 0;
    this.wrong(name);
    return undefined;
  }

  optionalRecord(name: string): FieldReader | undefined {
    const value = this.record[name];
    if (value === undefined) return undefined;
    if (isRecord(value))
      return new FieldReader(value, this.path ? `${this.path}.${name}` : name, this.report);
    this.wrong(name);
    return undefined;
  }

  /** Each element through `parse`; elements it refuses are reported and left out. */
  optionalArray<T>(name: string, parse: (item: unknown, path: string) => T | undefined): T[] | undefined {
    const value = this.record[name];
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) {
      this.wrong(name);
      return undefined;
    }
    const items: T[] = [];
    value.forEach((item: unknown, index) => {
      const itemPath = `${this.path ? `${this.path}.` : ''}${name}[${index}]`;
      const parsed = parse(item, itemPath);
      if (parsed === undefined) this.report(itemPath);
      else items.push(parsed);
    });
    return items;
  }
}

/** The usage figures a stored or sent turn may carry, and the range each must be in. */
const USAGE_RANGES: ReadonlyArray<readonly [keyof TurnUsage, number, number]> = [
  ['promptTokens', 0, MAX_TOKEN_COUNT],
  ['completionTokens', 0, MAX_TOKEN_COUNT],
  ['reasoningTokens', 0, MAX_TOKEN_COUNT],
  ['totalTokens', 0, MAX_TOKEN_COUNT],
  ['cost', 0, MAX_USD],
  ['estimatedCost', 0, MAX_USD],
  ['cachedTokens', 0, MAX_TOKEN_COUNT],
  ['cacheWriteTokens', 0, MAX_TOKEN_COUNT],
  ['cacheSavings', -MAX_USD, MAX_USD],
];

/** Usage with every figure in its range (a cost of -5 or 1e308 is not a cost: it is dropped). */
function parseUsage(fields: FieldReader): TurnUsage {
  const usage: TurnUsage = {};
  for (const [name, min, max] of USAGE_RANGES) {
    const value = fields.optionalNumber(name, min, max);
    if (value !== undefined) usage[name] = value;
  }
  return usage;
}

function parseError(fields: FieldReader): TurnError {
  const error: TurnError = {
    message: fields.string('message', 'The request failed.'),
    actions:
      fields.optionalArray('actions', (item) =>
        typeof item === 'string' && (ERROR_ACTIONS as readonly string[]).includes(item)
          ? (item as ErrorAction)
          : undefined,
      ) ?? [],
  };
  const status = fields.optionalNumber('status');
  const provider = fields.optionalString('provider');
  const retryAfter = fields.optionalNumber('retryAfter');
  if (status !== undefined) error.status = status;
  if (provider !== undefined) error.provider = provider;
  if (retryAfter !== undefined) error.retryAfter = Math.min(Math.max(retryAfter, 0), MAX_RETRY_AFTER_S);
  return error;
}

function parseToolCall(value: unknown, path: string, report: ReportProblem): ToolCallView | undefined {
  if (!isRecord(value)) return undefined;
  const fields = new FieldReader(value, path, report);
  const id = fields.optionalString('id');
  const call = { name: fields.string('name', ''), arguments: fields.string('arguments', '') };
  return id === undefined ? call : { id, ...call };
}

function parseCitation(value: unknown, path: string, report: ReportProblem): Citation | undefined {
  if (!isRecord(value) || typeof value.url !== 'string') return undefined;
  const title = new FieldReader(value, path, report).optionalString('title');
  return title === undefined ? { url: value.url } : { url: value.url, title };
}

/**
 * A turn from the host, or `undefined` when it has no usable id or role. Every other field that
 * is missing or of the wrong type gets a safe value (text: empty, status: complete) and is
 * reported, so one odd field never keeps a whole turn, or a conversation, from rendering.
 */
export function parseTurn(
  value: unknown,
  report: ReportProblem,
  path = 'turn',
  /** How much of each tool result to keep: a card's worth for the view, the model's copy in storage. */
  resultCap = MAX_CARD_RESULT_CHARS,
): Turn | undefined {
  if (!isRecord(value) || !isId(value.id)) return undefined;
  const fields = new FieldReader(value, path, report);
  const createdAt = fields.optionalNumber('createdAt') ?? 0;
  if (value.role === 'user') {
    const user: UserTurn = { id: value.id, role: 'user', content: fields.string('content', ''), createdAt };
    const attachments = fields.optionalArray('attachments', (item, itemPath) =>
      parseAttachment(item, itemPath, report),
    );
    if (attachments) user.attachments = attachments;
    if (fields.optionalBoolean('leftOut')) user.leftOut = true;
    if (isCheckpointId(value.checkpoint)) user.checkpoint = value.checkpoint;
    else if (value.checkpoint !== undefined) report(`${path}.checkpoint`);
    if (isCheckpointId(value.redoCheckpoint)) user.redoCheckpoint = value.redoCheckpoint;
    else if (value.redoCheckpoint !== undefined) report(`${path}.redoCheckpoint`);
    const note = fields.optionalString('checkpointNote');
    if (note) user.checkpointNote = note.slice(0, MAX_CHECKPOINT_NOTE_CHARS);
    return user;
  }
  if (value.role !== 'assistant') return undefined;
  let status: TurnStatus = 'complete';
  if (typeof value.status === 'string' && (TURN_STATUSES as readonly string[]).includes(value.status))
    status = value.status as TurnStatus;
  else report(`${path}.status`);
  const turn: AssistantTurn = {
    id: value.id,
    role: 'assistant',
    content: fields.string('content', ''),
    reasoning: value.reasoning === undefined ? '' : fields.string('reasoning', ''),
    status,
    model: fields.string('model', ''),
    createdAt,
  };
  const provider = fields.optionalString('provider');
  const finishReason = fields.optionalString('finishReason');
  const usage = fields.optionalRecord('usage');
  const toolCalls = fields.optionalArray('toolCalls', (item, itemPath) =>
    parseToolCall(item, itemPath, report),
  );
  const citations = fields.optionalArray('citations', (item, itemPath) =>
    parseCitation(item, itemPath, report),
  );
  const error = fields.optionalRecord('error');
  if (provider !== undefined) turn.provider = provider;
  if (finishReason !== undefined) turn.finishReason = finishReason;
  if (usage) turn.usage = parseUsage(usage);
  if (toolCalls) turn.toolCalls = toolCalls;
  if (citations) turn.citations = citations;
  if (error) turn.error = parseError(error);
  if (fields.optionalBoolean('leftOut')) turn.leftOut = true;
  if (value.steps !== undefined) {
    const steps = parseAgentSteps(value.steps, `${path}.steps`, report, resultCap);
    if (steps) turn.steps = steps;
    else report(`${path}.steps`);
  }
  if (value.agent !== undefined) {
    const agent = parseAgentProgress(value.agent);
    if (agent) turn.agent = agent;
    else report(`${path}.agent`);
  }
  const edited = fields.optionalArray('edited', (item) =>
    typeof item === 'string' && item.length <= 4096 ? item : undefined,
  );
  if (edited?.length) turn.edited = edited.slice(0, 1000);
  if (fields.optionalBoolean('undone')) turn.undone = true;
  if (fields.optionalBoolean('plan')) turn.plan = true;
  const instructions = fields.optionalArray('instructions', parseInstructionChip);
  if (instructions?.length) turn.instructions = instructions.slice(0, MAX_INSTRUCTION_CHIPS);
  if (value.media !== undefined) {
    const media = parseMediaCardRef(value.media);
    if (media) turn.media = media;
    else report(`${path}.media`);
  }
  return turn;
}

/** Most instruction chips a turn keeps. */
const MAX_INSTRUCTION_CHIPS = 200;

function parseInstructionChip(value: unknown): InstructionChip | undefined {
  if (!isRecord(value) || typeof value.path !== 'string' || !value.path || value.path.length > 4096)
    return undefined;
  if (value.reason !== 'always' && value.reason !== 'matched') return undefined;
  const tokens =
    typeof value.tokens === 'number' && Number.isFinite(value.tokens) ? Math.max(0, value.tokens) : 0;
  const chip: InstructionChip = { path: value.path, reason: value.reason, tokens: Math.round(tokens) };
  if (value.cut === true) chip.cut = true;
  if (value.dropped === true) chip.dropped = true;
  return chip;
}

const ATTACHMENT_KINDS: ReadonlySet<string> = new Set<AttachmentKind>([
  'selection',
  'file',
  'problems',
  'image',
  'pdf',
]);

function parseAttachment(value: unknown, path: string, report: ReportProblem): Attachment | undefined {
  if (!isRecord(value) || !isId(value.id) || !ATTACHMENT_KINDS.has(String(value.kind))) return undefined;
  const fields = new FieldReader(value, path, report);
  const attachment: Attachment = {
    id: value.id,
    kind: value.kind as AttachmentKind,
    name: fields.string('name', ''),
    bytes: fields.optionalNumber('bytes') ?? 0,
    tokens: fields.optionalNumber('tokens') ?? 0,
  };
  for (const key of ['path', 'language', 'text', 'mimeType', 'file'] as const) {
    const text = fields.optionalString(key);
    if (text !== undefined) attachment[key] = text;
  }
  return attachment;
}

function parseChip(value: unknown, path: string, report: ReportProblem): AttachmentChip | undefined {
  if (!isRecord(value) || !isId(value.id) || !ATTACHMENT_KINDS.has(String(value.kind))) return undefined;
  const fields = new FieldReader(value, path, report);
  return {
    id: value.id,
    kind: value.kind as AttachmentKind,
    name: fields.string('name', ''),
    bytes: fields.optionalNumber('bytes') ?? 0,
    tokens: fields.optionalNumber('tokens') ?? 0,
  };
}

function parseSummary(value: unknown, path: string, report: ReportProblem): ConversationSummary | undefined {
  if (!isRecord(value) || !isId(value.id)) return undefined;
  const fields = new FieldReader(value, path, report);
  return {
    id: value.id,
    title: fields.string('title', ''),
    updatedAt: fields.optionalNumber('updatedAt') ?? 0,
    turnCount: fields.optionalNumber('turnCount') ?? 0,
  };
}

function parseQueued(value: unknown): QueuedPrompt | undefined {
  return isRecord(value) && isId(value.id) && typeof value.text === 'string'
    ? { id: value.id, text: value.text }
    : undefined;
}

/** Turns in order, each id once: a repeated id would give two views one identity. */
function uniqueTurns(turns: Turn[], report: ReportProblem): Turn[] {
  const seen = new Set<string>();
  return turns.filter((turn, index) => {
    if (!seen.has(turn.id)) return seen.add(turn.id);
    report(`conversation.turns[${index}].id (repeated)`);
    return false;
  });
}

/**
 * The webview's parse of what arrives from the host. Each message is checked by its type and
 * rebuilt from our own types: a message without what it is about (a turn without an id, a
 * delta for no turn) is refused (`undefined`); a field of the wrong type inside an otherwise
 * usable message becomes absent (or a safe default) and is reported through `report`.
 */
export function parseHostMessage(
  value: unknown,
  report: ReportProblem = () => undefined,
): HostMessage | undefined {
  if (!isRecord(value) || typeof value.type !== 'string') return undefined;
  const m = value as Rec & { type: HostMessage['type'] };
  const fields = new FieldReader(m, '', report);
  switch (m.type) {
    case 'init': {
      if (!isRecord(m.conversation) || !isId(m.conversation.id)) return undefined;
      const conversation = new FieldReader(m.conversation, 'conversation', report);
      const turns = conversation.optionalArray('turns', (item, path) => parseTurn(item, report, path)) ?? [];
      if (m.conversation.turns === undefined) report('conversation.turns');
      return {
        type: 'init',
        conversation: {
          id: m.conversation.id,
          title: conversation.string('title', ''),
          turns: uniqueTurns(turns, report),
        },
        model: fields.string('model', ''),
        hasApiKey: fields.boolean('hasApiKey', true),
        history: fields.optionalArray('history', (item, path) => parseSummary(item, path, report)) ?? [],
      };
    }
    case 'turnAdded':
    case 'turnUpdated': {
      const turn = parseTurn(m.turn, report);
      return turn ? { type: m.type, turn } : undefined;
    }
    case 'turnDelta': {
      if (!isId(m.id)) return undefined;
      const content = fields.optionalString('content');
      const reasoning = fields.optionalString('reasoning');
      if (content === undefined && reasoning === undefined) return undefined;
      const delta: HostMessage = { type: 'turnDelta', id: m.id };
      if (content !== undefined) delta.content = content;
      if (reasoning !== undefined) delta.reasoning = reasoning;
      return delta;
    }
    case 'turnsRemoved': {
      const ids = fields.optionalArray('ids', (item) => (isId(item) ? item : undefined));
      return ids ? { type: 'turnsRemoved', ids } : undefined;
    }
    case 'model':
      return typeof m.model === 'string' ? { type: 'model', model: m.model } : undefined;
    case 'apiKey':
      return typeof m.hasApiKey === 'boolean' ? { type: 'apiKey', hasApiKey: m.hasApiKey } : undefined;
    case 'workspaceTrust':
      return typeof m.restricted === 'boolean'
        ? { type: 'workspaceTrust', restricted: m.restricted }
        : undefined;
    case 'history': {
      const items = fields.optionalArray('items', (item, path) => parseSummary(item, path, report));
      return items ? { type: 'history', items } : undefined;
    }
    case 'setComposer':
      return typeof m.text === 'string' ? { type: 'setComposer', text: m.text } : undefined;
    case 'focusComposer':
      return { type: 'focusComposer' };
    case 'queue': {
      const items = fields.optionalArray('items', parseQueued);
      return items ? { type: 'queue', items } : undefined;
    }
    case 'fileSuggestions': {
      if (typeof m.query !== 'string') return undefined;
      const files =
        fields.optionalArray('files', (item) =>
          isRecord(item) && isText(item.path, 4096) && isText(item.uri, 8192)
            ? { path: item.path, uri: item.uri }
            : undefined,
        ) ?? [];
      return { type: 'fileSuggestions', query: m.query, files: files.slice(0, 100) };
    }
    case 'context': {
      const context: HostMessage = {
        type: 'context',
        attachments: fields.optionalArray('attachments', (item, path) => parseChip(item, path, report)) ?? [],
        usedTokens: fields.optionalNumber('usedTokens') ?? 0,
        acceptsImages: fields.boolean('acceptsImages', false),
      };
      const contextLength = fields.optionalNumber('contextLength');
      const cost = fields.optionalNumber('cost');
      const saved = fields.optionalNumber('saved');
      if (contextLength !== undefined) context.contextLength = contextLength;
      if (cost !== undefined) context.cost = cost;
      if (saved !== undefined) context.saved = saved;
      if (fields.boolean('costEstimated', false)) context.costEstimated = true;
      if (fields.boolean('costUnreported', false)) context.costUnreported = true;
      return context;
    }
    case 'mediaJob': {
      const job = parseMediaCardState(m.job, report);
      return job ? { type: 'mediaJob', job } : undefined;
    }
    case 'modelOptions': {
      if (typeof m.model !== 'string') return undefined;
      const efforts = (fields.optionalArray('efforts', (item) => parseEffort(item)) ?? []).slice(0, 12);
      const options: HostMessage = {
        type: 'modelOptions',
        model: m.model,
        efforts,
        routing: parseRouting(m.routing),
        providers: providerList(m.providers),
        providerSetting: fields.boolean('providerSetting', false),
        tools: parseChatTools(m.tools),
        pluginsSetting: fields.boolean('pluginsSetting', false),
      };
      const defaultEffort = parseEffort(m.defaultEffort);
      const effort = parseEffort(m.effort);
      if (defaultEffort) options.defaultEffort = defaultEffort;
      if (effort) options.effort = effort;
      return options;
    }
    case 'composerNotice':
      return typeof m.message === 'string'
        ? { type: 'composerNotice', message: m.message.slice(0, 2000) }
        : undefined;
    case 'compaction': {
      const compaction = parseCompaction(m.compaction);
      if (m.compaction !== undefined && !compaction) report('compaction');
      return compaction ? { type: 'compaction', compaction } : { type: 'compaction' };
    }
    case 'agentStep':
    case 'agentTools':
      return parseAgentHostMessage(m, report);
    case 'modes': {
      const state = parseModesState(m);
      return state ? { type: 'modes', ...state } : undefined;
    }
    default: {
      const unknownType: never = m.type;
      void unknownType;
      return undefined;
    }
  }
}

/** Link schemes the chat opens (through the host, after this check). */
export const ALLOWED_LINK_SCHEMES: readonly string[] = ['http:', 'https:', 'mailto:'];

export function isAllowedLink(href: string): boolean {
  try {
    return ALLOWED_LINK_SCHEMES.includes(new URL(href).protocol);
  } catch {
    return false;
  }
}
