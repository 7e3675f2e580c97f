/**
 * What a model can take and give, read from its catalog entry, and the request fields that follow
 * from it. Pure. `undefined` means "the catalog does not say": then nothing is held back.
 */
import type { ChatRequest } from '../../api/types';
import type { CatalogModel } from './catalogCodec';

export interface Capabilities {
  vision: boolean | undefined;
  tools: boolean | undefined;
  reasoning: boolean | undefined;
  responseFormat: boolean | undefined;
  /** Produces images, video or audio (a media model). */
  mediaOutput: boolean;
  imageOutput: boolean;
}

export function capabilitiesOf(model: CatalogModel | undefined): Capabilities {
  const out = model?.outputModalities ?? [];
  const mediaOutput = out.some((m) => m === 'image' || m === 'video' || m === 'audio');
  if (!model?.described) {
    return {
      vision: undefined,
      tools: undefined,
      reasoning: undefined,
      responseFormat: undefined,
      mediaOutput,
      imageOutput: out.includes('image'),
    };
  }
  const params = model.supportedParameters;
  const saysParams = params.length > 0;
  const has = (...names: string[]) => (saysParams ? names.some((n) => params.includes(n)) : undefined);
  return {
    vision: model.inputModalities.length > 0 ? model.inputModalities.includes('image') : undefined,
    tools: has('tools'),
    reasoning: has('reasoning', 'include_reasoning'),
    responseFormat: has('response_format', 'structured_outputs'),
    mediaOutput,
    imageOutput: out.includes('image'),
  };
}

/** How images are offered: as the catalog says, or always/never whatever it says. */
export type ImageInputMode = 'auto' | 'always' | 'never';

export function acceptsImages(capabilities: Capabilities, mode: ImageInputMode): boolean {
  if (mode === 'always') return true;
  if (mode === 'never') return false;
  // A catalog that does not say: offer them (the gateway will answer if the model cannot).
  return capabilities.vision !== false;
}

export interface GatedRequest {
  request: ChatRequest;
  /** The fields left out because the model does not support them. */
  dropped: string[];
}

/**
 * Leaves out `reasoning`, `tools` and `response_format` where the model is known not to support
 * them (a provider may reject the whole request otherwise), unless `force` is set.
 */
export function gateRequest(request: ChatRequest, capabilities: Capabilities, force: boolean): GatedRequest {
  if (force) return { request, dropped: [] };
  const gated: ChatRequest = { ...request };
  const dropped: string[] = [];
  const drop = (field: 'reasoning' | 'tools' | 'response_format', supported: boolean | undefined) => {
    if (gated[field] !== undefined && supported === false) {
      delete gated[field];
      dropped.push(field);
    }
  };
  drop('reasoning', capabilities.reasoning);
  drop('tools', capabilities.tools);
  drop('response_format', capabilities.responseFormat);
  return { request: gated, dropped };
}
