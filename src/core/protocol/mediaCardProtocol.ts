/**
 * The chat's media cards: a `/image`, `/video`, `/audio` or `/media` prompt starts a media job, and
 * its reply turn carries a reference to that job (`MediaCardRef`, stored with the conversation).
 * What the job is doing now comes from the media-jobs model, the same one the Media Jobs tree
 * reads, as `MediaCardState` messages. Buttons on the card send `mediaAction` with the job id.
 *
 * Part of the chat protocol (chatProtocol.ts): pure, bundled into the webview and the host alike,
 * and every value from the other side is parsed here by type.
 */
import { isRecord } from '../../api/json';
import { MEDIA_COMMAND_KINDS } from '../mediaStudio/mediaCommand';
import type { MediaCommandKind } from '../mediaStudio/mediaCommand';

/** What a reply turn keeps of the job it shows; the job's state lives in the media-jobs model. */
export interface MediaCardRef {
  jobId: string;
  kind: MediaCommandKind;
  prompt: string;
}

/** One result as the card shows it: a webview URL the host made of a local file, or text. */
export type MediaCardOutput =
  | { kind: 'image' | 'video' | 'audio'; src: string }
  | { kind: 'text'; text: string }
  /** A result the card cannot show (another type, or not downloaded): Open and Save still work. */
  | { kind: 'file'; note: string };

/**
 * A job's state for its card. `status` is the job's (queued, processing, completed, failed,
 * cancelled, expired, unknown, or a word a gateway made up), or `removed` when the job no longer exists.
 */
export interface MediaCardState {
  jobId: string;
  status: string;
  model: string;
  /** Epoch milliseconds: the card counts the time since. */
  createdAt: number;
  finishedAt?: number;
  /** Why it failed, as the gateway said: shown as text, never as markup. */
  error?: string;
  /** Only for a completed job; empty while its results are being made ready. */
  outputs: MediaCardOutput[];
  /** Results are still being moved into files or downloaded. */
  preparing?: boolean;
  /** What the job cost, when the gateway reported it. */
  cost?: number;
  /** How far a running job is, 0 to 1, when the gateway says. */
  progress?: number;
}

export const REMOVED_STATUS = 'removed';

export const MEDIA_CARD_ACTIONS = ['open', 'save', 'insert', 'copyPath', 'rerun', 'variation'] as const;
export type MediaCardAction = (typeof MEDIA_CARD_ACTIONS)[number];

const MAX_ID = 500;
const MAX_TEXT = 1_000_000;
const MAX_OUTPUTS = 64;
/** Only URLs the webview may load from the extension's resources; never http(s) or data. */
const WEBVIEW_RESOURCE =
  /^(https:\/\/[^/]*\.vscode-resource\.vscode-cdn\.net\/|vscode-resource:|vscode-webview-resource:|http:\/\/127\.0\.0\.1(:\d+)?\/)/;

type Report = (path: string) => void;

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_ID;
}

/** A stored or sent reference, or undefined when it is not one. */
export function parseMediaCardRef(value: unknown): MediaCardRef | undefined {
  if (!isRecord(value) || !isId(value.jobId)) return undefined;
  if (!(MEDIA_COMMAND_KINDS as readonly unknown[]).includes(value.kind)) return undefined;
  if (typeof value.prompt !== 'string' || value.prompt.length > MAX_TEXT) return undefined;
  return { jobId: value.jobId, kind: value.kind as MediaCommandKind, prompt: value.prompt };
}

/** Whether the webview may load `src`: a resource URL of the webview (or the test server's). */
export function isCardSource(src: unknown): src is string {
  return typeof src === 'string' && src.length <= 8192 && WEBVIEW_RESOURCE.test(src);
}

function parseOutput(value: unknown): MediaCardOutput | undefined {
  if (!isRecord(value)) return undefined;
  switch (value.kind) {
    case 'image':
    case 'video':
    case 'audio':
      return isCardSource(value.src) ? { kind: value.kind, src: value.src } : undefined;
    case 'text':
      // Cut, never dropped: a long text result still shows its beginning.
      return typeof value.text === 'string' ? { kind: 'text', text: cutText(value.text) } : undefined;
    case 'file':
      return { kind: 'file', note: typeof value.note === 'string' ? value.note.slice(0, 2000) : '' };
    default:
      return undefined;
  }
}

/** The most of a text result a card shows (the host sends less, and says where it cut). */
export const MAX_CARD_TEXT = 50_000;

function cutText(text: string): string {
  return text.length > MAX_CARD_TEXT ? `${text.slice(0, MAX_CARD_TEXT)}…` : text;
}

/** A finite number that is not negative: a time or a cost. */
function time(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * The webview's parse of a card state: undefined without a job id; any other field of the wrong
 * type gets a safe value and is reported (`job.status`), outputs it cannot show are left out.
 */
export function parseMediaCardState(value: unknown, report: Report): MediaCardState | undefined {
  if (!isRecord(value) || !isId(value.jobId)) return undefined;
  const text = (name: string, fallback: string, max = 200): string => {
    const field = value[name];
    if (typeof field === 'string') return field.slice(0, max);
    report(`job.${name}`);
    return fallback;
  };
  const state: MediaCardState = {
    jobId: value.jobId,
    status: text('status', 'unknown', 40),
    model: text('model', ''),
    createdAt: time(value.createdAt) ?? (report('job.createdAt'), 0),
    outputs: [],
  };
  const finishedAt = time(value.finishedAt);
  if (finishedAt !== undefined) state.finishedAt = finishedAt;
  else if (value.finishedAt !== undefined) report('job.finishedAt');
  if (typeof value.error === 'string') state.error = value.error.slice(0, 4000);
  else if (value.error !== undefined) report('job.error');
  if (value.preparing === true) state.preparing = true;
  const cost = time(value.cost);
  if (cost !== undefined) state.cost = cost;
  else if (value.cost !== undefined) report('job.cost');
  const progress = time(value.progress);
  if (progress !== undefined && progress <= 1) state.progress = progress;
  else if (value.progress !== undefined) report('job.progress');
  if (Array.isArray(value.outputs)) {
    value.outputs.slice(0, MAX_OUTPUTS).forEach((item: unknown, index) => {
      const output = parseOutput(item);
      if (output) state.outputs.push(output);
      else report(`job.outputs[${index}]`);
    });
  } else if (value.outputs !== undefined) report('job.outputs');
  return state;
}

/** The host's parse of a card button's message fields; undefined when malformed. */
export function parseMediaAction(
  value: Record<string, unknown>,
): { type: 'mediaAction'; action: MediaCardAction; jobId: string } | undefined {
  const { action, jobId } = value;
  if (!(MEDIA_CARD_ACTIONS as readonly unknown[]).includes(action) || !isId(jobId)) return undefined;
  return { type: 'mediaAction', action: action as MediaCardAction, jobId };
}
