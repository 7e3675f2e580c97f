import { estimateContext, turnsToLeaveOut } from '../../core/chat/attachments';
import type { Attachment } from '../../core/chat/attachments';
import { activeCompaction, estimateMessages, summaryMessage, turnsAfter } from '../../core/chat/compaction';
import type { Conversation } from '../../core/chat/conversation';
import { chatTotals } from '../../core/cost/replyCost';
import type { Settings } from '../config/settings';
import { notify } from '../notify';
import type { AttachmentTray } from './attachments';
import type { ModelGate } from './turn/modelGate';
import type { TurnHost } from './turn/turnHost';

/**
 * The context meter: the conversation and pending attachments against the model's context, and
 * its "Drop oldest turns" and "Include them again".
 */
export class ContextMeter {
  constructor(
    private readonly deps: {
      host: Pick<TurnHost, 'current' | 'post' | 'save' | 'busy'>;
      settings: Settings;
      models: ModelGate;
      tray?: AttachmentTray;
    },
  ) {}

  /** Posts the meter. */
  async post(): Promise<void> {
    const { host, tray, models } = this.deps;
    const conversation = await host.current();
    const settings = this.deps.settings.current.chat;
    const pending = tray?.list() ?? [];
    const totals = chatTotals(conversation.turns.map((t) => (t.role === 'assistant' ? t.usage : undefined)));
    host.post({
      type: 'context',
      attachments: tray?.chips() ?? [],
      usedTokens: sentTokens(conversation, settings.systemPrompt, pending),
      contextLength: models.contextLength(settings.model),
      acceptsImages: models.acceptsImagesNow(settings.model),
      cost: totals.cost,
      ...(totals.estimated ? { costEstimated: true } : {}),
      ...(totals.unreported ? { costUnreported: true } : {}),
      saved: totals.saved,
    });
  }

  /**
   * "Drop oldest turns": leaves just enough of the oldest exchanges out of what is sent that the
   * conversation, the pending attachments and a prompt of `promptTokens` fit the model's context.
   * They stay in the chat, marked, and can be included again; nothing is deleted. Returns the ids
   * left out.
   */
  async leaveOutOldest(promptTokens: number): Promise<string[]> {
    const { host, tray } = this.deps;
    const conversation = await host.current();
    const settings = this.deps.settings.current.chat;
    const contextLength = this.deps.models.contextLength(settings.model);
    if (!contextLength) {
      void notify.info(
        `Gateway AI: the model catalog does not give ${settings.model}'s context length, so nothing was left out.`,
      );
      return [];
    }
    if (host.busy()) {
      void notify.info('Gateway AI: wait for the reply to finish, then drop the oldest turns.');
      return [];
    }
    const pending = tray?.list() ?? [];
    const ids = new Set(
      turnsToLeaveOut(conversation.turns, settings.systemPrompt, pending, promptTokens, contextLength),
    );
    for (const turn of conversation.turns) {
      if (!ids.has(turn.id)) continue;
      turn.leftOut = true;
      host.post({ type: 'turnUpdated', turn });
    }
    const still = sentTokens(conversation, settings.systemPrompt, pending) + promptTokens;
    if (still > contextLength)
      void notify.warn(
        `Gateway AI: even without the earlier turns, the prompt and attachments are about ${still} tokens, more than ${settings.model}'s ${contextLength}. Remove attachments or shorten the prompt.`,
      );
    if (ids.size) {
      conversation.updatedAt = Date.now();
      void host.save(conversation);
    }
    await this.post();
    return [...ids];
  }

  /** Sends the turns that were left out again. */
  async includeLeftOut(): Promise<void> {
    const { host } = this.deps;
    const conversation = await host.current();
    let changed = false;
    for (const turn of conversation.turns) {
      if (!turn.leftOut) continue;
      delete turn.leftOut;
      changed = true;
      host.post({ type: 'turnUpdated', turn });
    }
    if (!changed) return;
    conversation.updatedAt = Date.now();
    void host.save(conversation);
    await this.post();
  }
}

/** What a request would carry: under a summary, the summary and the turns after it. */
function sentTokens(
  conversation: Conversation,
  systemPrompt: string,
  pending: readonly Attachment[],
): number {
  const compaction = activeCompaction(conversation.turns, conversation.compaction);
  const summary = compaction ? estimateMessages([summaryMessage(compaction)]) : 0;
  return estimateContext(turnsAfter(conversation.turns, compaction), systemPrompt, pending) + summary;
}
