/**
 * What a media command typed into the chat starts: the parsed command (mediaCommand.ts) over the
 * media settings, checked against what the model's catalog entry says it makes and takes. Pure:
 * the host passes the settings and the catalog entry in.
 */
import type { MediaCommandKind } from './mediaCommand';
import { modelMakes, parseMediaCommand } from './mediaCommand';

export interface ChatMediaPlan {
  kind: MediaCommandKind;
  prompt: string;
  model: string;
  parameters: Record<string, unknown>;
  /** The parameters named on the command line (the rest came from settings). */
  flags: string[];
}

/** What the catalog says of a model; empty lists mean "it does not say". */
export interface MediaModelFacts {
  outputModalities: readonly string[];
  supportedParameters: readonly string[];
}

export type ChatMediaPlanResult = { ok: true; plan: ChatMediaPlan } | { ok: false; error: string };

const KIND_NAMES: Record<MediaCommandKind, string> = {
  image: 'images',
  video: 'video',
  audio: 'audio',
  media: 'media',
};

/**
 * The plan for `text`, an error to show the user, or undefined when the text is no media
 * command (an ordinary prompt). Settings' parameters come first; the command's flags override.
 * Check the plan against the model's catalog entry with `checkPlan` before starting it.
 */
export function planChatMedia(
  text: string,
  settings: { model: string; parameters: Record<string, unknown> },
): ChatMediaPlanResult | undefined {
  const parsed = parseMediaCommand(text);
  if (!parsed) return undefined;
  if (!parsed.ok) return parsed;
  const { kind, prompt, parameters } = parsed.command;
  const model = parsed.command.model ?? settings.model;
  if (!model)
    return {
      ok: false,
      error: 'No media model is set. Set gateway.media.model, or add --model <model id> to the command.',
    };
  return {
    ok: true,
    plan: {
      kind,
      prompt,
      model,
      parameters: { ...settings.parameters, ...parameters },
      flags: Object.keys(parameters),
    },
  };
}

/**
 * Why the model cannot run the plan, from what its catalog entry says, or undefined when it can
 * (or the catalog does not say). A flag is refused only where the catalog lists the model's
 * parameters and it is not among them.
 */
export function checkPlan(plan: ChatMediaPlan, facts: MediaModelFacts | undefined): string | undefined {
  const makes = facts?.outputModalities.length ? facts.outputModalities : undefined;
  if (!modelMakes(plan.kind, makes))
    return `${plan.model} does not make ${KIND_NAMES[plan.kind]}, according to the gateway's model catalog (it makes ${makes?.join(', ')}). Pick another model with --model, or use /media to send the prompt anyway.`;
  const known = facts?.supportedParameters ?? [];
  const unknown = known.length ? plan.flags.filter((name) => !known.includes(name)) : [];
  if (unknown.length)
    return `${plan.model} does not take ${unknown.map((name) => `--${name}`).join(', ')}. It takes: ${known.map((name) => `--${name}`).join(', ')}.`;
  return undefined;
}
