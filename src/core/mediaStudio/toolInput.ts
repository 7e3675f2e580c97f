/**
 * The input of the `gateway_generateMedia` tool, as an agent sends it, and what the user is asked
 * to confirm. VS Code checks the input against the declared schema, but the tool parses it again:
 * a schema is advice to a model, not a type.
 *
 * The confirmation is made from the same plan as the request, and lists all of it: the model, the
 * prompt and every parameter, each on a line of its own as a JSON literal in which line breaks,
 * control, bidi and invisible characters are escaped where they can be seen. So an agent cannot
 * hide a parameter, fake a line, or have one thing shown and another sent.
 */
import { isRecord } from '../../api/json';
import { RESERVED_MEDIA_KEYS, withoutReservedKeys } from '../../api/media';
import type { MediaRequest } from '../../api/types';
import { modelIdProblem, toModelId } from '../config/modelId';
import { UNKNOWN_STATUS } from '../media/mediaJob';
import type { MediaJob } from '../media/mediaJob';
import { inertText } from '../util/text';
import { cleanRelativeFolder } from './resultNames';

export interface GenerateMediaInput {
  prompt: string;
  model?: string;
  parameters?: Record<string, unknown>;
  /** Workspace-relative folder. */
  saveTo?: string;
}

export type ParsedToolInput = { ok: true; input: GenerateMediaInput } | { ok: false; error: string };

/** The kinds `listModels` takes; `all` lists every kind. */
export const LISTED_KINDS = ['image', 'video', 'audio', 'all'] as const;
export type ListedKind = (typeof LISTED_KINDS)[number];

/**
 * The kind of models the input asks to list (`{"listModels": "video"}`), or undefined when it
 * asks for something to be generated. Anything but one of LISTED_KINDS is no listing.
 */
export function parseListModels(value: unknown): ListedKind | undefined {
  if (!isRecord(value) || !Object.hasOwn(value, 'listModels')) return undefined;
  const kind = value.listModels;
  return LISTED_KINDS.find((known) => known === kind);
}

export function parseGenerateMediaInput(value: unknown): ParsedToolInput {
  if (!isRecord(value)) return { ok: false, error: 'The input must be an object with a "prompt".' };
  const { prompt, model, parameters, saveTo, listModels } = value;
  if (listModels !== undefined && listModels !== null)
    return { ok: false, error: `"listModels" must be one of ${LISTED_KINDS.join(', ')}.` };
  if (typeof prompt !== 'string' || !prompt.trim())
    return { ok: false, error: '"prompt" must be a non-empty string.' };
  const modelId = model === undefined || model === null ? undefined : toModelId(model);
  if (model !== undefined && model !== null && modelId === undefined)
    return { ok: false, error: `"model" is not a model id: ${modelIdProblem(model) ?? ''}` };
  if (parameters !== undefined && parameters !== null && !isRecord(parameters))
    return { ok: false, error: '"parameters" must be an object.' };
  const reserved = isRecord(parameters)
    ? RESERVED_MEDIA_KEYS.filter((key) => Object.hasOwn(parameters, key))
    : [];
  if (reserved.length)
    return {
      ok: false,
      error: `"parameters" may not hold ${reserved.map((key) => `"${key}"`).join(' or ')}: give the model and the prompt as the tool's own "model" and "prompt".`,
    };
  const json = isRecord(parameters) ? asJson(parameters) : undefined;
  if (isRecord(parameters) && !isRecord(json))
    return { ok: false, error: '"parameters" must be plain JSON.' };
  if (saveTo !== undefined && saveTo !== null && typeof saveTo !== 'string')
    return { ok: false, error: '"saveTo" must be a workspace-relative folder.' };
  return {
    ok: true,
    input: {
      prompt: prompt.trim(),
      ...(modelId ? { model: modelId } : {}),
      ...(isRecord(json) ? { parameters: json } : {}),
      ...(typeof saveTo === 'string' && saveTo.trim() ? { saveTo: saveTo.trim() } : {}),
    },
  };
}

/** What the tool takes from the settings when the agent leaves a field out. */
export interface ToolDefaults {
  model: string;
  /** `gateway.media.parameters`: sent with every job, under the agent's own. */
  parameters: Record<string, unknown>;
  saveFolder: string;
}

/** Exactly what the tool sends (`request`) and where it saves the result. */
export interface ToolPlan {
  request: Required<MediaRequest>;
  /** Workspace-relative, cleaned; '' for the workspace folder itself. */
  folder: string;
  /** Keys of the settings' parameters that are not sent, because the request's own fields win. */
  notSent: string[];
}

/** The one plan both the confirmation and the request are made from. */
export function planToolRequest(input: GenerateMediaInput, defaults: ToolDefaults): ToolPlan {
  const fromSettings = asJson(defaults.parameters);
  const settings = isRecord(fromSettings) ? fromSettings : {};
  return {
    request: {
      model: input.model ?? defaults.model,
      prompt: input.prompt,
      parameters: withoutReservedKeys({ ...settings, ...input.parameters }),
    },
    folder: cleanRelativeFolder(input.saveTo ?? defaults.saveFolder),
    notSent: RESERVED_MEDIA_KEYS.filter((key) => Object.hasOwn(settings, key)),
  };
}

/** A value shown longer than this is cut, and the line says so. */
export const MAX_SHOWN_VALUE = 2000;

/**
 * The confirmation, one line each: the model, the prompt, every parameter as the JSON member it is
 * sent as (`"size": "1024x1024"`), what is left out, and where the result goes. No line holds a
 * line break or an invisible character: they are shown as JSON escapes.
 */
export function confirmationLines(plan: ToolPlan): string[] {
  const { model, prompt, parameters } = plan.request;
  const entries = Object.entries(parameters);
  return [
    `Model: ${shownJson(model)}`,
    `Prompt: ${shownJson(prompt)}`,
    entries.length
      ? `Parameters sent with them (${entries.length}, one per line):`
      : 'No other parameters are sent.',
    ...entries.map(([key, value]) => `${shownJson(key)}: ${shownJson(value)}`),
    ...plan.notSent.map(
      (key) => `Not sent: ${shownJson(key)} from the media parameters setting (the ${key} above is sent).`,
    ),
    `Saved into: ${plan.folder ? shownJson(plan.folder) : 'the workspace folder'}. The gateway may charge for it.`,
  ];
}

/**
 * Characters that move, hide or break text: controls (C0, C1), format characters (bidi
 * overrides and isolates, zero-width ones, tags), private-use and unassigned code points, line and
 * paragraph separators, spaces other than U+0020, and the Hangul fillers that render as nothing.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\u115f\u1160\u3164\uffa0]|(?! )\p{Zs}/gu;

/**
 * `value` as JSON, with every invisible character written as its `\uXXXX` escape: still valid
 * JSON that parses back to `value`, and one visible line whatever the value holds.
 */
export function visibleJson(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(INVISIBLE, (char) =>
    [...Array(char.length).keys()]
      .map((i) => `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`)
      .join(''),
  );
}

function shownJson(value: unknown): string {
  const json = visibleJson(value);
  return json.length > MAX_SHOWN_VALUE
    ? `${json.slice(0, MAX_SHOWN_VALUE)}… (cut here: ${json.length} characters in all)`
    : json;
}

/** The JSON the value is sent as, parsed back: undefined for what JSON cannot hold. */
function asJson(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

/**
 * The plans confirmations were shown for, by the tool input they were made from. VS Code asks
 * for the confirmation and then runs the tool in two calls; if the settings the plan depends on
 * changed in between, the plan now differs from the one confirmed, and the tool must not send it.
 */
export class ConfirmedPlans {
  private readonly plans = new Map<string, string>();

  constructor(private readonly max = 32) {}

  remember(input: unknown, plan: ToolPlan): void {
    const key = inputKey(input);
    if (key === undefined) return;
    this.plans.delete(key);
    this.plans.set(key, JSON.stringify(plan));
    for (const oldest of this.plans.keys()) {
      if (this.plans.size <= this.max) break;
      this.plans.delete(oldest);
    }
  }

  /**
   * Whether `plan` may be sent for `input`: yes when it is the plan confirmed for that input, or
   * when none was shown (a caller that asks for no confirmation). Forgets the confirmed plan.
   */
  matches(input: unknown, plan: ToolPlan): boolean {
    const key = inputKey(input);
    const shown = key === undefined ? undefined : this.plans.get(key);
    if (key !== undefined) this.plans.delete(key);
    return shown === undefined || shown === JSON.stringify(plan);
  }
}

function inputKey(input: unknown): string | undefined {
  try {
    return JSON.stringify(input);
  } catch {
    return undefined;
  }
}

/**
 * What the agent is told when the job ended without a result: how it ended, and what to do. The
 * gateway's reason is its own text: labelled as such and quoted as one JSON string (made inert,
 * invisible characters escaped), so it cannot pass for our words or an instruction.
 */
export function endedWithoutResult(job: Pick<MediaJob, 'status' | 'error'>): string {
  const said = job.error
    ? ` The gateway's own text, quoted: ${visibleJson(inertText(job.error, MAX_GATEWAY_TEXT))}`
    : '';
  switch (job.status) {
    case 'failed':
      return `The media job failed at the gateway, so nothing was saved.${said || ' No reason was given.'}`;
    case 'cancelled':
      return `The media job was cancelled at the gateway before it finished, so nothing was saved.${said}`;
    case 'expired':
      return `The media job expired at the gateway before its result was fetched, so nothing was saved. Starting it again is the only way to get a result.${said}`;
    case UNKNOWN_STATUS:
      return `The gateway no longer knows the media job, or it did not finish within a day, so nothing was saved.${said}`;
    default:
      return `The media job ended as ${visibleJson(inertText(job.status, 40))}, without a result.${said}`;
  }
}

const MAX_GATEWAY_TEXT = 1000;
