import type { ChatRequest } from '../../../api/types';
import { acceptsImages, capabilitiesOf, gateRequest } from '../../../core/catalog/capabilities';
import { toolSupport } from '../../../core/agent/agentRequest';
import type { ToolSupport } from '../../../core/agent/agentRequest';
import type { CatalogFeature } from '../../catalog/catalogFeature';
import type { GatewayService } from '../../gateway/gatewayService';
import type { Settings } from '../../config/settings';
import type { Logger } from '../../log/logger';

/** How long a first request waits for the model catalog before it is sent ungated. */
const CATALOG_WAIT_MS = 2000;

/** The catalog's entry for a model, when the catalog knows it (in time). */
export type CatalogEntry = Parameters<typeof capabilitiesOf>[0];

/**
 * What the catalog says a model can take: its entry (waited for briefly), the request with what
 * it cannot take left out, whether it may be offered tools and whether it takes images.
 */
export class ModelGate {
  constructor(
    private readonly deps: {
      catalog?: CatalogFeature;
      settings: Settings;
      logger: Logger;
      /** What the gateway itself refused (tools for a model), learned from its answers. */
      gateway?: Pick<GatewayService, 'toolsRefused'>;
    },
  ) {}

  /** The model's entry, waited for up to CATALOG_WAIT_MS: a slow catalog must not hold up the chat. */
  async entry(id: string): Promise<CatalogEntry> {
    const catalog = this.deps.catalog?.catalog;
    if (!catalog) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    return (
      catalog.peek(id) ??
      (await Promise.race([
        catalog.get(id),
        new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), CATALOG_WAIT_MS))),
      ]).finally(() => clearTimeout(timer)))
    );
  }

  /** The entry if the catalog has it now (no wait). */
  peek(id: string): CatalogEntry {
    return this.deps.catalog?.catalog.peek(id);
  }

  /** The model's context length in tokens, if the catalog has it now. */
  contextLength(id: string): number | undefined {
    return this.peek(id)?.contextLength;
  }

  pricing(model: string) {
    return this.peek(model)?.pricing;
  }

  /** Leaves out what the model cannot take (per the catalog), unless the user forces it. */
  async gated(request: ChatRequest, known?: CatalogEntry): Promise<ChatRequest> {
    if (!this.deps.catalog) return request;
    const model = known ?? (await this.entry(request.model));
    const { request: gated, dropped } = gateRequest(
      request,
      capabilitiesOf(model),
      this.deps.settings.current.chat.forceParameters,
    );
    if (dropped.length)
      this.deps.logger.info(
        `Not sent to ${request.model}, which does not support them: ${dropped.join(', ')}.`,
      );
    return gated;
  }

  /** Whether the model may be offered tools, and why not. */
  async toolSupport(model: string, entry?: CatalogEntry): Promise<ToolSupport> {
    const forced = this.deps.settings.current.chat.forceParameters;
    const known = entry ?? (await this.entry(model));
    return toolSupport(
      model,
      forced || capabilitiesOf(known).tools,
      forced,
      this.deps.gateway?.toolsRefused(model),
    );
  }

  /** Whether the current model takes images (per the catalog and the override setting). */
  async imagesAllowed(): Promise<{ ok: true } | { ok: false; reason: string }> {
    const settings = this.deps.settings.current.chat;
    const model = await this.entry(settings.model);
    if (acceptsImages(capabilitiesOf(model), settings.imageInput)) return { ok: true };
    return {
      ok: false,
      reason:
        settings.imageInput === 'never'
          ? 'Image attachments are turned off (gateway.chat.imageInput).'
          : `${settings.model} does not take images, according to the gateway's model catalog. Choose a model with vision, or set gateway.chat.imageInput to "always".`,
    };
  }

  /** Whether the model takes images now (no wait), for the context meter. */
  acceptsImagesNow(model: string): boolean {
    return acceptsImages(capabilitiesOf(this.peek(model)), this.deps.settings.current.chat.imageInput);
  }
}
