/**
 * The agent loop's part of the chat protocol: steps, tool-call cards, confirmations, the tool
 * picker, and the messages about them in both directions. Parsed by type here, once, for the
 * webview (messages from the host), the host (messages from the webview) and storage (stored
 * turns go through `parseTurn`, which calls `parseAgentSteps`).
 */
import { isRecord } from '../../api/json';
import { MAX_TOKEN_COUNT, MAX_USD } from '../../api/types';
import type {
  AgentPause,
  AgentProgress,
  AgentStep,
  AgentToolChoices,
  ApprovalChoice,
  Confirmation,
  FileChange,
  ToolCallRecord,
  ToolCallState,
  ToolSource,
} from '../agent/types';
import { MAX_CARD_RESULT_CHARS, MAX_TOOL_RESULT_CHARS } from '../agent/types';
import { isId } from './protocolFields';

/** A source in the tool picker. */
export interface AgentToolSourceView {
  id: string;
  kind: ToolSource['kind'];
  label: string;
  /** The tools' names, as the model sees them. */
  tools: string[];
  /** On in this chat. */
  enabled: boolean;
  /** An MCP server's state; `off` until the user turns it on. */
  state?: 'off' | 'starting' | 'running' | 'error';
  /** What turning it on starts (an MCP server's command line or URL), or why it failed. */
  detail?: string;
  /** An MCP server VS Code runs (started and stopped there, not in the panel). */
  runBy?: 'vscode';
}

/** The tool picker's state for the open chat and model. */
export interface AgentToolsState {
  /** Tools can be offered to the current model (its catalog lists `tools`, or parameters are forced). */
  available: boolean;
  /** Why not, when they cannot (shown in the panel). */
  reason?: string;
  /** The user turned tools off in this chat. */
  off: boolean;
  /** Restricted Mode: edits and commands are off. */
  restricted: boolean;
  /** What this host cannot do (VS Code for the Web: no commands, no stdio MCP servers), in words. */
  platformNote?: string;
  sources: AgentToolSourceView[];
}

export const APPROVAL_CHOICES: readonly ApprovalChoice[] = ['once', 'chat', 'always', 'command', 'deny'];
const CALL_STATES: readonly ToolCallState[] = [
  'awaitingApproval',
  'running',
  'done',
  'failed',
  'denied',
  'cancelled',
];
const SOURCE_KINDS: readonly ToolSource['kind'][] = ['builtin', 'mcp', 'extension'];
const SOURCE_STATES = ['off', 'starting', 'running', 'error'] as const;

/** Longest confirmation text (a command line, a diff, a tool's arguments) the view accepts. */
export const MAX_CONFIRMATION_CHARS = 200_000;
/** Most steps one turn may keep (the step cap is far below). */
export const MAX_STEPS_KEPT = 500;
/** Longest deny reason the user may give. */
export const MAX_REASON_CHARS = 2000;

type Report = (path: string) => void;

function str(value: unknown, max: number): string | undefined {
  return typeof value === 'string' ? value.slice(0, max) : undefined;
}

function num(value: unknown, min: number, max: number): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max
    ? value + 0
    : undefined;
}

/** Longest reason a card gives for asking every time. */
export const MAX_WHY_CHARS = 1000;

export function parseConfirmation(value: unknown): Confirmation | undefined {
  const confirmation = parseConfirmationKind(value);
  if (!confirmation || !isRecord(value)) return confirmation;
  const why = str(value.why, MAX_WHY_CHARS);
  return {
    ...confirmation,
    ...(value.onceOnly === true ? { onceOnly: true } : {}),
    ...(why ? { why } : {}),
  };
}

function parseConfirmationKind(value: unknown): Confirmation | undefined {
  if (!isRecord(value)) return undefined;
  switch (value.kind) {
    case 'command': {
      const command = str(value.command, MAX_CONFIRMATION_CHARS);
      if (command === undefined) return undefined;
      return {
        kind: 'command',
        command,
        cwd: str(value.cwd, 4096) ?? '',
        timeoutSeconds: num(value.timeoutSeconds, 0, 86_400) ?? 0,
      };
    }
    case 'edit': {
      const path = str(value.path, 4096);
      if (path === undefined) return undefined;
      const realPath = str(value.realPath, 4096);
      return {
        kind: 'edit',
        path,
        ...(realPath ? { realPath } : {}),
        created: value.created === true,
        diff: str(value.diff, MAX_CONFIRMATION_CHARS) ?? '',
      };
    }
    case 'tool': {
      const name = str(value.name, 200);
      if (name === undefined) return undefined;
      return {
        kind: 'tool',
        name,
        source: str(value.source, 200) ?? '',
        arguments: str(value.arguments, MAX_CONFIRMATION_CHARS) ?? '',
        ...(value.noAlways === true ? { noAlways: true } : {}),
      };
    }
    default:
      return undefined;
  }
}

/**
 * A call as stored or sent. `resultCap` bounds the result text: the view keeps a card's worth,
 * storage keeps what went to the model.
 */
export function parseToolCallRecord(
  value: unknown,
  path: string,
  report: Report,
  resultCap: number,
): ToolCallRecord | undefined {
  if (!isRecord(value) || !isId(value.id)) return undefined;
  const state = (CALL_STATES as readonly unknown[]).includes(value.state)
    ? (value.state as ToolCallState)
    : undefined;
  if (!state) report(`${path}.state`);
  const call: ToolCallRecord = {
    id: value.id,
    name: str(value.name, 200) ?? '',
    arguments: str(value.arguments, MAX_TOOL_RESULT_CHARS * 4) ?? '',
    state: state ?? 'cancelled',
  };
  const source = str(value.source, 200);
  const startedAt = num(value.startedAt, 0, 8.64e15);
  const durationMs = num(value.durationMs, 0, 8.64e15);
  const result = str(value.result, resultCap);
  const reason = str(value.reason, MAX_REASON_CHARS);
  const note = str(value.note, 500);
  if (note !== undefined) call.note = note;
  if (source !== undefined) call.source = source;
  if (startedAt !== undefined) call.startedAt = startedAt;
  if (durationMs !== undefined) call.durationMs = durationMs;
  if (result !== undefined) call.result = result;
  if (reason !== undefined) call.reason = reason;
  if (value.confirmation !== undefined) {
    const confirmation = parseConfirmation(value.confirmation);
    if (confirmation) call.confirmation = confirmation;
    else report(`${path}.confirmation`);
  }
  return call;
}

export function parseAgentStep(
  value: unknown,
  path: string,
  report: Report,
  resultCap = MAX_CARD_RESULT_CHARS,
): AgentStep | undefined {
  if (!isRecord(value)) return undefined;
  const step: AgentStep = {
    content: typeof value.content === 'string' ? value.content : '',
    calls: [],
  };
  if (typeof value.reasoning === 'string' && value.reasoning) step.reasoning = value.reasoning;
  if (Array.isArray(value.calls)) {
    const seen = new Set<string>();
    value.calls.forEach((item: unknown, index) => {
      const call = parseToolCallRecord(item, `${path}.calls[${index}]`, report, resultCap);
      if (!call || seen.has(call.id)) report(`${path}.calls[${index}]`);
      else {
        seen.add(call.id);
        step.calls.push(call);
      }
    });
  } else report(`${path}.calls`);
  // Echoed back to the gateway as it came: only plain JSON records, bounded.
  if (Array.isArray(value.reasoningDetails)) {
    const details = value.reasoningDetails.filter(isRecord).slice(0, 100);
    if (details.length && JSON.stringify(details).length <= 1_000_000) step.reasoningDetails = details;
  }
  return step;
}

export function parseAgentSteps(
  value: unknown,
  path: string,
  report: Report,
  resultCap = MAX_CARD_RESULT_CHARS,
): AgentStep[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const steps: AgentStep[] = [];
  value.slice(0, MAX_STEPS_KEPT).forEach((item: unknown, index) => {
    const step = parseAgentStep(item, `${path}[${index}]`, report, resultCap);
    if (step) steps.push(step);
    else report(`${path}[${index}]`);
  });
  return steps;
}

export function parseAgentProgress(value: unknown): AgentProgress | undefined {
  if (!isRecord(value)) return undefined;
  const progress: AgentProgress = {
    steps: num(value.steps, 0, 1_000_000) ?? 0,
    promptTokens: num(value.promptTokens, 0, MAX_TOKEN_COUNT) ?? 0,
    completionTokens: num(value.completionTokens, 0, MAX_TOKEN_COUNT) ?? 0,
  };
  const cost = num(value.cost, 0, MAX_USD);
  if (cost !== undefined) progress.cost = cost;
  if (value.costEstimated === true) progress.costEstimated = true;
  if (value.costUnreported === true) progress.costUnreported = true;
  const costCap = num(value.costCap, 0, MAX_USD);
  if (costCap !== undefined && costCap > 0) progress.costCap = costCap;
  const pause = isRecord(value.pause) ? value.pause : undefined;
  if (pause && (PAUSE_KINDS as readonly unknown[]).includes(pause.kind)) {
    const spent = num(pause.spent, 0, MAX_USD);
    const cap = num(pause.cap, 0, MAX_USD);
    if (spent !== undefined && cap !== undefined) {
      progress.pause = { kind: pause.kind as AgentPause['kind'], spent, cap };
      const call = pauseCall(pause.call);
      if (call && pause.kind !== 'steps') progress.pause.call = call;
    }
  }
  return progress;
}

const PAUSE_KINDS: readonly AgentPause['kind'][] = ['turnCost', 'dayCost', 'steps'];

/** The paid call a spend-cap pause is about: a tool name as providers take them, and its estimate. */
function pauseCall(value: unknown): AgentPause['call'] {
  if (!isRecord(value) || typeof value.name !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(value.name))
    return undefined;
  const estimate = num(value.estimate, 0, MAX_USD);
  return { name: value.name, ...(estimate !== undefined ? { estimate } : {}) };
}

/**
 * A workspace-relative path that stays inside its folder: forward slashes, no empty, `.` or `..`
 * segment, no drive or root, no backslash (a stored file is outside data: undo writes there).
 */
export function isRelativePath(path: string): boolean {
  if (!path || path.length > 4096 || path.includes('\\') || path.includes('\0')) return false;
  if (/^[A-Za-z]:/.test(path)) return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/** A stored change: what *Undo this turn* would put back. Storage only; never sent to the view. */
export function parseFileChange(value: unknown): FileChange | undefined {
  if (!isRecord(value) || typeof value.path !== 'string' || !isRelativePath(value.path)) return undefined;
  const folder = num(value.folder, 0, 1000);
  if (folder === undefined || !Number.isInteger(folder)) return undefined;
  if (value.before !== null && typeof value.before !== 'string') return undefined;
  if (typeof value.after !== 'string') return undefined;
  const change: FileChange = { path: value.path, folder, before: value.before, after: value.after };
  if (typeof value.folderUri === 'string' && value.folderUri.length <= 8192)
    change.folderUri = value.folderUri;
  return change;
}

export function parseAgentToolChoices(value: unknown): AgentToolChoices {
  if (!isRecord(value)) return {};
  const choices: AgentToolChoices = {};
  if (value.off === true) choices.off = true;
  if (Array.isArray(value.disabledSources)) {
    const ids = value.disabledSources.filter(isId).slice(0, 200);
    if (ids.length) choices.disabledSources = [...new Set(ids)];
  }
  return choices;
}

export function parseAgentToolsState(value: unknown): AgentToolsState | undefined {
  if (!isRecord(value)) return undefined;
  const sources: AgentToolSourceView[] = [];
  if (Array.isArray(value.sources))
    for (const item of value.sources.slice(0, 200)) {
      if (!isRecord(item) || !isId(item.id)) continue;
      const kind = (SOURCE_KINDS as readonly unknown[]).includes(item.kind)
        ? (item.kind as ToolSource['kind'])
        : 'extension';
      const source: AgentToolSourceView = {
        id: item.id,
        kind,
        label: str(item.label, 200) ?? item.id,
        tools: Array.isArray(item.tools)
          ? item.tools
              .filter((t): t is string => typeof t === 'string')
              .map((t) => t.slice(0, 200))
              .slice(0, 500)
          : [],
        enabled: item.enabled === true,
      };
      if ((SOURCE_STATES as readonly unknown[]).includes(item.state))
        source.state = item.state as AgentToolSourceView['state'];
      const detail = str(item.detail, 4000);
      if (detail !== undefined) source.detail = detail;
      if (item.runBy === 'vscode') source.runBy = 'vscode';
      sources.push(source);
    }
  const state: AgentToolsState = {
    available: value.available === true,
    off: value.off === true,
    restricted: value.restricted === true,
    sources,
  };
  const reason = str(value.reason, 2000);
  if (reason !== undefined) state.reason = reason;
  const platformNote = str(value.platformNote, 2000);
  if (platformNote) state.platformNote = platformNote;
  return state;
}

/** Host → webview messages of the agent loop. */
export type AgentHostMessage =
  /** A step of a turn changed: its text ended, or one of its calls changed state. */
  | { type: 'agentStep'; turnId: string; index: number; step: AgentStep; progress: AgentProgress }
  | ({ type: 'agentTools' } & AgentToolsState);

/** Webview → host messages of the agent loop. */
export type AgentWebviewMessage =
  /** The user's answer to a call awaiting approval. */
  | { type: 'toolDecision'; turnId: string; callId: string; choice: ApprovalChoice; reason?: string }
  /** Show a proposed or applied edit in the editor's diff. */
  | { type: 'openToolDiff'; turnId: string; callId: string }
  /** Restore every file the turn changed or created. */
  | { type: 'undoTurn'; turnId: string }
  /** *Restore to here* on a prompt: the workspace back to its checkpoint (the host confirms first). */
  | { type: 'restoreCheckpoint'; turnId: string }
  /** *Redo* on a prompt restored to: the files forward again to before that restore. */
  | { type: 'redoCheckpoint'; turnId: string }
  /** The tool picker: tools off in this chat, or some sources off. */
  | { type: 'setAgentTools'; choices: AgentToolChoices }
  /** Turn an MCP server on (which starts it: the user saw its command line) or off. */
  | { type: 'setToolSource'; sourceId: string; enabled: boolean }
  /** The user's answer to a paused turn (a spend or step cap): go on, or stop there. */
  | { type: 'agentPauseDecision'; turnId: string; choice: 'continue' | 'stop' };

export function parseAgentWebviewMessage(m: Record<string, unknown>): AgentWebviewMessage | undefined {
  switch (m.type) {
    case 'toolDecision': {
      if (!isId(m.turnId) || !isId(m.callId)) return undefined;
      if (!(APPROVAL_CHOICES as readonly unknown[]).includes(m.choice)) return undefined;
      const choice = m.choice as ApprovalChoice;
      const reason = choice === 'deny' ? str(m.reason, MAX_REASON_CHARS)?.trim() : undefined;
      return reason
        ? { type: 'toolDecision', turnId: m.turnId, callId: m.callId, choice, reason }
        : { type: 'toolDecision', turnId: m.turnId, callId: m.callId, choice };
    }
    case 'openToolDiff':
      return isId(m.turnId) && isId(m.callId)
        ? { type: 'openToolDiff', turnId: m.turnId, callId: m.callId }
        : undefined;
    case 'undoTurn':
      return isId(m.turnId) ? { type: 'undoTurn', turnId: m.turnId } : undefined;
    case 'restoreCheckpoint':
    case 'redoCheckpoint':
      return isId(m.turnId) ? { type: m.type, turnId: m.turnId } : undefined;
    case 'setAgentTools':
      return { type: 'setAgentTools', choices: parseAgentToolChoices(m.choices) };
    case 'setToolSource':
      return isId(m.sourceId) && typeof m.enabled === 'boolean'
        ? { type: 'setToolSource', sourceId: m.sourceId, enabled: m.enabled }
        : undefined;
    case 'agentPauseDecision':
      return isId(m.turnId) && (m.choice === 'continue' || m.choice === 'stop')
        ? { type: 'agentPauseDecision', turnId: m.turnId, choice: m.choice }
        : undefined;
    default:
      return undefined;
  }
}

export function parseAgentHostMessage(
  m: Record<string, unknown>,
  report: Report,
): AgentHostMessage | undefined {
  switch (m.type) {
    case 'agentStep': {
      if (!isId(m.turnId)) return undefined;
      const index = num(m.index, 0, MAX_STEPS_KEPT - 1);
      if (index === undefined || !Number.isInteger(index)) return undefined;
      const step = parseAgentStep(m.step, 'step', report);
      if (!step) return undefined;
      return {
        type: 'agentStep',
        turnId: m.turnId,
        index,
        step,
        progress: parseAgentProgress(m.progress) ?? { steps: 0, promptTokens: 0, completionTokens: 0 },
      };
    }
    case 'agentTools': {
      const state = parseAgentToolsState(m);
      return state ? { type: 'agentTools', ...state } : undefined;
    }
    default:
      return undefined;
  }
}
