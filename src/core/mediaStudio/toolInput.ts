/**
 * The input of the `gateway_generateMedia` tool, as an agent sends it. VS Code checks it against
 * the declared schema, but the tool parses it again: a schema is advice to a model, not a type.
 */
import { isRecord } from '../../api/json';
import { isModelId } from '../config/settingsModel';

export interface GenerateMediaInput {
  prompt: string;
  model?: string;
  parameters?: Record<string, unknown>;
  /** Workspace-relative folder. */
  saveTo?: string;
}

export type ParsedToolInput = { ok: true; input: GenerateMediaInput } | { ok: false; error: string };

export function parseGenerateMediaInput(value: unknown): ParsedToolInput {
  if (!isRecord(value)) return { ok: false, error: 'The input must be an object with a "prompt".' };
  const { prompt, model, parameters, saveTo } = value;
  if (typeof prompt !== 'string' || !prompt.trim())
    return { ok: false, error: '"prompt" must be a non-empty string.' };
  if (model !== undefined && model !== null && !isModelId(model))
    return { ok: false, error: '"model" must look like <vendor>/<model_name>, e.g. openai/gpt-image-1.' };
  if (parameters !== undefined && parameters !== null && !isRecord(parameters))
    return { ok: false, error: '"parameters" must be an object.' };
  if (saveTo !== undefined && saveTo !== null && typeof saveTo !== 'string')
    return { ok: false, error: '"saveTo" must be a workspace-relative folder.' };
  return {
    ok: true,
    input: {
      prompt: prompt.trim(),
      ...(typeof model === 'string' ? { model: model.trim() } : {}),
      ...(isRecord(parameters) ? { parameters } : {}),
      ...(typeof saveTo === 'string' && saveTo.trim() ? { saveTo: saveTo.trim() } : {}),
    },
  };
}
