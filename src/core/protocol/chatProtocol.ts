/**
 * The one message protocol between the chat view's host (extension) and its webview. Both sides
 * import this file; it imports only pure helpers, so it bundles into the browser and into Node alike.
 *
 * Every message that crosses is validated on arrival (`parseWebviewMessage` on the host side,
 * `parseHostMessage` on the webview side): the webview is a separate, less trusted context.
 */

import { isRecord } from '../../api/json';

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
  | { type: 'exportConversation' };

export const ERROR_ACTIONS: readonly ErrorAction[] = ['setApiKey', 'retry', 'openSettings', 'selectModel'];

/** The message a button offered beside an error sends: each action is its own intent. */
export function errorActionMessage(action: ErrorAction, turnId: string): WebviewMessage {
  return action === 'retry' ? { type: 'retry', turnId } : { type: action };
}

/** Longest text accepted from the webview in one message (a prompt, a code block to copy). */
export const MAX_WEBVIEW_TEXT = 1_000_000;

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
      return { type: m.type };
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
