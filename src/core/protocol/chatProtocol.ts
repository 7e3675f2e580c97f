/**
 * The one message protocol between the chat view's host (extension) and its webview. Both sides
 * import this file; it imports only pure helpers, so it bundles into the browser and into Node alike.
 *
 * Every message that crosses is validated on arrival (`parseWebviewMessage` on the host side,
 * `parseHostMessage` on the webview side): the webview is a separate, less trusted context.
 */

import { isRecord } from '../../api/json';
import type { Attachment } from '../chat/attachments';

export type TurnStatus = 'streaming' | 'complete' | 'stopped' | 'error';

/** What the user can do about an error, offered as a button beside it. */
export type ErrorAction = 'setApiKey' | 'retry' | 'openSettings' | 'selectModel';

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
  /** In the gateway's credits (usually USD). */
  cost?: number;
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
  | { type: 'history'; items: ConversationSummary[] }
  /** Put text into the composer (e.g. to edit the last prompt). */
  | { type: 'setComposer'; text: string }
  | ({ type: 'context' } & ContextState)
  | { type: 'focusComposer' };

// ---------------------------------------------------------------------------------------------
// Webview → host

export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'send'; text: string }
  | { type: 'stop' }
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
  | { type: 'newChat' }
  | { type: 'openConversation'; id: string }
  | { type: 'deleteConversation'; id: string }
  | { type: 'exportConversation' }
  | { type: 'removeAttachment'; id: string }
  /** An image pasted or dropped, already scaled down; `data` is base64. */
  | { type: 'attachImage'; name: string; mimeType: string; data: string }
  /** Files dropped from the Explorer or editor tabs (`text/uri-list`). */
  | { type: 'attachUris'; uris: string[] }
  | { type: 'attachFile' };

export const ERROR_ACTIONS: readonly ErrorAction[] = ['setApiKey', 'retry', 'openSettings', 'selectModel'];

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

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= 200;
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
    case 'newChat':
    case 'exportConversation':
    case 'attachFile':
      return { type: m.type };
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
    default: {
      const unknownType: never = m.type;
      void unknownType;
      return undefined;
    }
  }
}

const HOST_TYPES: ReadonlySet<string> = new Set<HostMessage['type']>([
  'init',
  'turnAdded',
  'turnDelta',
  'turnUpdated',
  'turnsRemoved',
  'model',
  'apiKey',
  'history',
  'setComposer',
  'focusComposer',
  'context',
]);

/** The webview's check of what arrives: the host is trusted, but the channel is not typed. */
export function parseHostMessage(value: unknown): HostMessage | undefined {
  if (!isRecord(value) || typeof value.type !== 'string' || !HOST_TYPES.has(value.type)) return undefined;
  return value as unknown as HostMessage;
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
