/**
 * The agent loop's shared vocabulary: what a tool is, what a call looks like at each moment of
 * its life, what the user is asked to approve, and what a finished step keeps. Pure types and
 * constants: the core loop (`agentLoop.ts`), the host's tool sources (`src/host/agent/`), the
 * chat protocol and the webview all speak it.
 */

import type { SpendHold } from '../cost/spendHolds';

/** Where a tool comes from; the tool picker has one toggle per source. */
export interface ToolSource {
  kind: 'builtin' | 'mcp' | 'extension';
  /** `gateway` for our own set, the MCP server's name, or the extension's id. */
  id: string;
  /** What the picker and the cards call it. */
  label: string;
  /**
   * What exactly runs behind the name (an MCP server's launch, hashed): an approval remembered
   * for a tool holds only while it is the same.
   *
   * For an MCP server we run: 16 lowercase hex characters, the start of the SHA-256 of its launch
   * identity (name, origin `workspace`/`user`, and the launch as written, `${env:…}` references
   * unresolved). It differs between a workspace's server and the user's of the same name, and
   * changes when the command, arguments, URL, headers or environment references change; it stays
   * when only the value of a referenced variable does. Absent where no launch is known.
   */
  fingerprint?: string;
}

/** A tool as the model is told of it, and as the host decides about it. */
export interface ToolSpec {
  /** The name the model calls (`^[A-Za-z0-9_-]{1,64}$`, unique in one request). */
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  source: ToolSource;
  /**
   * Reads inside the workspace and nothing else: runs without asking, and may run in parallel
   * with the other read-only calls of the same reply. Everything else asks first and runs alone.
   */
  readOnly: boolean;
}

/** What the user sees before approving, exactly as it will run. All of it is shown as inert text. */
/**
 * What the card says when it offers no *Always allow this tool* (a tool of another extension or
 * an MCP server: see `mayAlwaysAllow`).
 */
export const NO_ALWAYS_NOTE =
  'Always allow is not offered for tools of other extensions and MCP servers: they can run programs, and an Always would hold in every later workspace. Allow it once, or in this chat.';

export type Confirmation = (
  | { kind: 'command'; command: string; cwd: string; timeoutSeconds: number }
  | {
      kind: 'edit';
      /** Workspace-relative path, forward slashes. */
      path: string;
      /**
       * The file's real path when `path` reaches it through a link (what is written), absolute.
       */
      realPath?: string;
      /** The file does not exist yet. */
      created: boolean;
      /** A unified diff of the change (shown in the card; the editor's diff opens beside it). */
      diff: string;
    }
  | {
      kind: 'tool';
      name: string;
      /** The source's label: an MCP server or an extension. */
      source: string;
      /** The full arguments, pretty-printed JSON. */
      arguments: string;
      /** The tool cannot be allowed always (a server VS Code runs): the card does not offer it. */
      noAlways?: boolean;
    }
) & {
  /**
   * Only this call can be allowed (a repeated call, an edit that can make something run later):
   * the card offers Allow once and Deny.
   */
  onceOnly?: boolean;
  /**
   * Why this call asks every time, in the host's words (an edit that can make something run
   * later, a read of a file that holds a private key): shown on the card.
   */
  why?: string;
};

/** A file a call changed, with what it held before: what *Undo this turn* puts back. */
export interface FileChange {
  /** Workspace-relative path, forward slashes (of the folder `folder`, when there are several). */
  path: string;
  /** The workspace folder's index. */
  folder: number;
  /** That folder's URI when the change was made: undo writes nowhere else. */
  folderUri?: string;
  /** The text before the turn first changed it; `null`: the turn created the file. */
  before: string | null;
  /** The text the turn left (to see whether the user changed it since). */
  after: string;
}

/** What a tool gives back. `text` goes to the model as the `tool` message, capped. */
export interface ToolOutput {
  text: string;
  /** The tool failed: the text says why, and the model is told so. */
  isError?: boolean;
  /** Files this call changed (edits and created files), for *Undo this turn*. */
  changes?: FileChange[];
}

/** A call checked and ready: what the user must approve (if anything), and how to run it. */
export interface PreparedCall {
  /** Absent: nothing to confirm (a read inside the workspace). */
  confirmation?: Confirmation;
  /** Where the host can show an edit in the editor's diff before approval. */
  preview?: { path: string; folder: number; before: string; after: string };
  /**
   * Set when this call is asked about every time, even for a tool the user allowed in the chat
   * or always: the always-ask pattern its file's real path matches (see `alwaysAskPattern`).
   */
  alwaysAsk?: string;
  /**
   * Set when the call costs money (a media job): its price by the catalog. Such a call runs
   * alone, and only after its estimate was held against the spend caps.
   */
  paid?: PaidCall;
  /**
   * Runs the call. A paid call gets its hold, and ends it when its cost is known (see
   * `SpendHold`); a hold it leaves open keeps counting the estimate.
   */
  run(signal: AbortSignal, hold?: SpendHold): Promise<ToolOutput>;
}

/** A call's price, as the host works it out before the call runs. */
export interface PaidCall {
  /** USD expected; undefined when no price is known (with a cap set, the user is asked first). */
  estimate?: number;
  /** How the estimate was made, or why there is none, in words for the user and the model. */
  basis: string;
}

/**
 * The tools one turn may use. `prepare` checks the arguments and works out what would run; it
 * throws `ToolInputError` for arguments that are wrong (the message goes back to the model).
 */
export interface ToolSet {
  specs(): readonly ToolSpec[];
  prepare(name: string, args: unknown, signal: AbortSignal): Promise<PreparedCall>;
}

/** Arguments a tool cannot take; its message goes back to the model as the call's result. */
export class ToolInputError extends Error {
  override readonly name = 'ToolInputError';
}

export type ToolCallState = 'awaitingApproval' | 'running' | 'done' | 'failed' | 'denied' | 'cancelled';

/** The user's answer to a confirmation. */
/**
 * The user's answer: this call, the tool for the rest of the chat, the tool always (never offered
 * for `run_command`), this exact command line in this folder always (`command`, only for
 * `run_command`), or no.
 */
export type ApprovalChoice = 'once' | 'chat' | 'always' | 'command' | 'deny';

export interface ApprovalDecision {
  choice: ApprovalChoice;
  /** With `deny`: why, in the user's words; it goes back to the model. */
  reason?: string;
}

/** One call of a step, as the card shows it and as the history keeps it. */
export interface ToolCallRecord {
  /** The `tool_call_id` the model sent (one is made up when it sent none). */
  id: string;
  name: string;
  /** The arguments exactly as the model sent them (JSON text, maybe invalid). */
  arguments: string;
  state: ToolCallState;
  /** The source's label, when the tool is known. */
  source?: string;
  /** Epoch ms the call started running, and how long it ran. */
  startedAt?: number;
  durationMs?: number;
  /** Exactly what went back to the model as the `tool` message. */
  result?: string;
  /** What was (or is being) asked of the user. */
  confirmation?: Confirmation;
  /** The user's reason for denying, as the model was told. */
  reason?: string;
  /** Why the host asks about a call it would otherwise run (the same call repeated). Ours, not the model's. */
  note?: string;
}

/** One round of the loop: the model's text, then the calls it made and their results. */
export interface AgentStep {
  content: string;
  reasoning?: string;
  calls: ToolCallRecord[];
  /**
   * The reply's `reasoning_details` (Gemini's `thought_signature` among them), echoed back on
   * the assistant message as the gateway sent them.
   */
  reasoningDetails?: unknown[];
}

/** The turn's running totals, shown live while the loop runs. */
export interface AgentProgress {
  steps: number;
  promptTokens: number;
  completionTokens: number;
  /**
   * Credits (USD) spent by the turn's requests so far: what the gateway reported, and tokens ×
   * the catalog's price for replies it reported no cost for (`costEstimated`).
   */
  cost?: number;
  /** Part of `cost` is estimated from tokens × price. */
  costEstimated?: boolean;
  /** A reply had neither a reported cost nor a price: `cost` leaves it out. */
  costUnreported?: boolean;
  /** The turn's spend cap now (USD), where one is set: the counter shows the cost against it. */
  costCap?: number;
  /** The loop is waiting for the user: a cap would be passed by the next request. */
  pause?: AgentPause;
}

/**
 * Why the loop waits before its next request or paid call: the turn's or the day's spend cap
 * would be passed (judged by the last reply's cost, or the call's estimate), or the step cap was reached. `spent` and `cap` are dollars,
 * or steps for `steps`.
 */
export interface AgentPause {
  kind: 'turnCost' | 'dayCost' | 'steps';
  spent: number;
  cap: number;
  /**
   * A spend cap reached before a paid call rather than a request: the call's tool, and its
   * estimate (absent: no known price, which with a cap set always asks).
   */
  call?: { name: string; estimate?: number };
}

/** The per-chat tool picker's state: which sources are off (all are on by default). */
export interface AgentToolChoices {
  /** Tools of the chat are off altogether (a plain chat). */
  off?: boolean;
  /** Source ids switched off in this chat. */
  disabledSources?: string[];
}

/** Limits and caps of the loop. */
export const AGENT_DEFAULT_MAX_STEPS = 25;
/** The same call (name and arguments) this many times in a row pauses the loop and asks. */
export const AGENT_REPEAT_LIMIT = 3;
/** Longest tool result sent to the model, in characters (the rest is cut with a note). */
export const MAX_TOOL_RESULT_CHARS = 32_000;
/** Longest tool result kept for the card (the model's copy is kept in full up to the cap above). */
export const MAX_CARD_RESULT_CHARS = 8_000;
/** Most calls one reply may make that are run; the rest are answered "not run". */
export const MAX_CALLS_PER_STEP = 128;
