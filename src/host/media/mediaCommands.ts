import * as vscode from 'vscode';
import { GatewayError } from '../../api/errors';
import { modelIdProblem, toModelId } from '../config/settings';
import type { GatewaySettings } from '../config/settings';
import { Command } from '../../core/ids';
import { notify } from '../notify';
import type { GenerateArgs } from './jobs/mediaJobs';
import { checkMediaParameters, describeMediaOptions } from '../../api/media';
import type { MediaModelInfo } from '../../api/mediaRoutes';
import { pickMediaModel } from './mediaModelPicker';

/** Validates `gateway.generateMedia`'s argument; throws a readable error for a bad one. */
export function parseGenerateArgs(value: unknown): GenerateArgs {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error('gateway.generateMedia takes { prompt, model?, parameters? }.');
  }
  const v = value as Record<string, unknown>;
  if (typeof v.prompt !== 'string' || !v.prompt.trim())
    throw new Error('gateway.generateMedia needs a non-empty prompt.');
  const model = v.model === undefined ? undefined : toModelId(v.model);
  if (v.model !== undefined && model === undefined)
    throw new Error(`gateway.generateMedia: the model is not a model id. ${modelIdProblem(v.model) ?? ''}`);
  if (
    v.parameters !== undefined &&
    (typeof v.parameters !== 'object' || v.parameters === null || Array.isArray(v.parameters))
  ) {
    throw new Error('gateway.generateMedia: parameters must be an object.');
  }
  return {
    prompt: v.prompt.trim(),
    model,
    parameters: v.parameters as Record<string, unknown> | undefined,
  };
}

let lastPrompt = '';

/** Asks for prompt, model and parameters in three short steps; undefined when cancelled. */
export async function askGenerateArgs(
  settings: GatewaySettings['media'],
  pickModel?: (current: string) => Promise<string | undefined>,
  listMediaModels?: () => Promise<MediaModelInfo[]>,
): Promise<GenerateArgs | undefined> {
  const prompt = await vscode.window.showInputBox({
    title: 'Generate Media (1/3): prompt',
    prompt: 'Describe the image, video or audio to generate',
    value: lastPrompt,
    ignoreFocusOut: true,
    validateInput: (v) => (v.trim() ? undefined : 'Describe what to generate.'),
  });
  if (prompt === undefined) return undefined;
  // Kept so a cancelled later step does not lose what was typed.
  lastPrompt = prompt;
  // The gateway's media catalogs (OpenRouter's image and video lists among them) when it has any.
  const catalog = listMediaModels ? await listMediaModels().catch(() => []) : [];
  const model = catalog.length
    ? await pickMediaModel(catalog, settings.model)
    : pickModel
      ? await pickModel(settings.model)
      : await vscode.window.showInputBox({
          title: 'Generate Media (2/3): model',
          prompt: 'Media model id, as the gateway names it (gpt-image-1, openai/gpt-image-1)',
          value: settings.model,
          ignoreFocusOut: true,
          validateInput: (v) => modelIdProblem(v.trim()),
        });
  if (model === undefined) return undefined;
  const info = catalog.find((entry) => entry.id === model.trim());
  const offered = describeMediaOptions(info);
  const parametersText = await vscode.window.showInputBox({
    title: 'Generate Media (3/3): parameters (optional)',
    prompt: offered
      ? `Parameters as a JSON object; ${model.trim()} takes ${offered}. Leave {} for its defaults.`
      : 'Extra parameters as a JSON object, e.g. {"size": "1024x1024"}. Leave {} for none.',
    value: JSON.stringify(settings.parameters),
    ignoreFocusOut: true,
    validateInput: (v) => {
      if (!v.trim()) return undefined;
      try {
        const parsed: unknown = JSON.parse(v);
        if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
          return 'Parameters must be a JSON object.';
        // Checked against the model's catalog entry before anything is sent.
        return checkMediaParameters(info, parsed as Record<string, unknown>);
      } catch {
        return 'This is not valid JSON.';
      }
    },
  });
  if (parametersText === undefined) return undefined;
  lastPrompt = '';
  const parameters = parametersText.trim() ? (JSON.parse(parametersText) as Record<string, unknown>) : {};
  return { prompt: prompt.trim(), model: model.trim(), parameters };
}

/** Shows a failed start with what the user can do about it. */
export async function reportStartFailure(error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  const needsKey =
    GatewayError.is(error) && (error.status === 401 || (error.kind === 'config' && /key/i.test(message)));
  const action = needsKey ? 'Set API Key' : undefined;
  const choice = await notify.error(
    `Gateway AI: the media job was not started. ${message}`,
    ...(action ? [action] : []),
  );
  if (choice === 'Set API Key') await vscode.commands.executeCommand(Command.setApiKey);
}
