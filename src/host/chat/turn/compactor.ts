import type { ChatRequest } from '../../../api/types';
import {
  KEEP_SHARE,
  MAX_SUMMARY_CHARS,
  MAX_TRANSCRIPT_CHARS,
  activeCompaction,
  boundSummary,
  estimateMessages,
  planCompaction,
  summaryRequest,
} from '../../../core/chat/compaction';
import type { CompactionPlan } from '../../../core/chat/compaction';
import { toApiMessages } from '../../../core/chat/conversation';
import { toTurnError } from '../../../core/chat/turnError';
import type { Compaction, Turn } from '../../../core/protocol/chatProtocol';
import type { Settings } from '../../config/settings';
import type { GatewayService } from '../../gateway/gatewayService';
import type { Logger } from '../../log/logger';
import type { ChatModelMenu } from '../modelMenu';
import type { ModelGate } from './modelGate';

/** Most tokens the summary reply may take. */
const SUMMARY_MAX_TOKENS = 2_000;

export type CompactionOutcome = (
  | { ok: true; compaction: Compaction; plan: CompactionPlan }
  /** Nothing older than the newest exchange is left to summarise. */
  | { ok: false; nothing: true; reason: string }
  | { ok: false; nothing?: false; reason: string }
) & {
  /** What the summary request cost, as the gateway reported it: the caller counts it. */
  cost?: number;
};

/**
 * Writes the summary of a chat's oldest turns with the summarising model (the user's
 * `gateway.chat.compactionModel`, or the chat's own): which turns is the core's plan; this asks
 * the gateway, bounds the reply, and records its cost.
 */
export class Compactor {
  constructor(
    private readonly deps: {
      gateway: GatewayService;
      settings: Settings;
      logger: Logger;
      models: ModelGate;
      /** The user's upstream routing per model (data collection, ZDR, price), where the menu is. */
      menu?: Pick<ChatModelMenu, 'routing'>;
    },
  ) {}

  /**
   * Summarises the oldest turns of `turns` (the chat as sent: no media turns) so that the newest
   * fit in a share of `contextLength` (when unknown, only the last exchange stays).
   */
  async compact(
    turns: readonly Turn[],
    previous: Compaction | undefined,
    contextLength: number | undefined,
    signal: AbortSignal,
  ): Promise<CompactionOutcome> {
    const keepTokens = contextLength ? contextLength * KEEP_SHARE : 0;
    const plan = planCompaction(turns, activeCompaction(turns, previous), keepTokens, (kept) =>
      estimateMessages(toApiMessages(kept, '')),
    );
    if (!plan) return { ok: false, nothing: true, reason: 'There are no earlier turns to summarise yet.' };
    const chat = this.deps.settings.current.chat;
    const model = chat.compactionModel || chat.model;
    const window = this.deps.models.contextLength(model);
    // The transcript fits the summarising model's own context, with room for its reply.
    const maxChars = window
      ? Math.max(4_000, Math.min(MAX_TRANSCRIPT_CHARS, (window - SUMMARY_MAX_TOKENS) * 3))
      : MAX_TRANSCRIPT_CHARS;
    const request: ChatRequest = {
      model,
      messages: summaryRequest(activeCompaction(turns, previous), plan.summarise, maxChars),
      stream: true,
      max_tokens: SUMMARY_MAX_TOKENS,
    };
    // The chat goes where the user lets the chat go: their routing (no data collection, ZDR) holds.
    const provider = this.deps.menu ? this.deps.menu.routing(model) : chat.provider;
    if (provider) request.provider = provider;
    const stop = new AbortController();
    const onAbort = () => stop.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    let text = '';
    let cost: number | undefined;
    try {
      const gated = await this.deps.models.gated(request);
      for await (const delta of this.deps.gateway.client().streamChat(gated, { signal: stop.signal })) {
        if (delta.type === 'content') text += delta.text;
        if (delta.type === 'usage' && delta.usage.cost !== undefined) cost = delta.usage.cost;
        // A summary far past its bound is cut here: the rest is never read.
        if (text.length > MAX_SUMMARY_CHARS * 2) break;
      }
    } catch (error) {
      if (signal.aborted) return { ok: false, reason: 'The turn was stopped.', cost };
      const reason = toTurnError(error).message;
      this.deps.logger.warn(`Summarising the earlier turns with ${model} failed: ${reason}`);
      return { ok: false, reason, cost };
    } finally {
      signal.removeEventListener('abort', onAbort);
      stop.abort();
    }
    const summary = boundSummary(text);
    if (!summary) return { ok: false, reason: `${model} sent an empty summary.`, cost };
    return {
      ok: true,
      cost,
      plan,
      compaction: {
        summary,
        throughTurnId: plan.throughTurnId,
        turns: plan.covered,
        model,
        createdAt: Date.now(),
      },
    };
  }
}
