import { assistantTurn, titleFrom, userTurn } from '../../core/chat/conversation';
import type { ChatImage } from '../../api/chatImages';
import type { Conversation } from '../../core/chat/conversation';
import { toTurnError } from '../../core/chat/turnError';
import type { AssistantTurn } from '../../core/protocol/chatProtocol';
import type { MediaCardAction } from '../../core/protocol/mediaCardProtocol';
import type { Logger } from '../log/logger';
import type { ChatMedia } from './chatMedia';
import type { TurnHost } from './turn/turnHost';

/**
 * The chat's media turns: a media command (`/image …`) and its job's card, and the cards' Re-run
 * and Variation. A media job runs beside the chat: it neither waits for a reply nor holds one up.
 */
export class MediaTurns {
  constructor(
    private readonly media: ChatMedia,
    private readonly host: TurnHost,
    private readonly logger: Logger,
  ) {}

  /** Shows the cards of these jobs (the chat was opened). */
  show(jobIds: string[]): void {
    this.media.show(jobIds);
  }

  /**
   * Starts a media job from a media command and shows the command and the job's card. A command
   * that cannot run (a bad flag, a model that makes no video) or a job the gateway refuses adds
   * nothing: the view is told why, and what was typed stays in the composer.
   */
  async start(text: string, beforeAppend?: (conversation: Conversation) => void): Promise<void> {
    const planned = await this.media.plan(text);
    if (!planned) return;
    if (!planned.ok) {
      this.host.post({ type: 'composerNotice', message: planned.error });
      return;
    }
    let jobId: string;
    try {
      jobId = await this.media.start(planned.plan);
    } catch (error) {
      this.logger.warn(`A media job from the chat was not started: ${(error as Error).message}`);
      this.host.post({
        type: 'composerNotice',
        message: `The media job was not started. ${toTurnError(error).message}`,
      });
      return;
    }
    const conversation = await this.host.current();
    beforeAppend?.(conversation);
    if (conversation.turns.length === 0) conversation.title = titleFrom(planned.plan.prompt);
    this.host.append(conversation, userTurn(text));
    this.addCard(conversation, jobId, planned.plan);
  }

  /** A button on a media card; Re-run and Variation get a card of their own. */
  async act(action: MediaCardAction, jobId: string): Promise<void> {
    const started = await this.media.act(action, jobId);
    if (!started) return;
    const conversation = await this.host.current();
    const from = conversation.turns.find((t) => t.role === 'assistant' && t.media?.jobId === jobId);
    if (from?.role !== 'assistant' || !from.media) return;
    this.addCard(conversation, started, { ...from.media, model: from.model });
  }

  /**
   * The pictures a reply drew become a completed media job, shown as a card after the reply (and
   * in the gallery). The prompt is the user's turn before the reply.
   */
  async adoptDrawn(
    conversation: Conversation,
    turn: AssistantTurn,
    images: readonly ChatImage[],
  ): Promise<void> {
    if (!images.length) return;
    const index = conversation.turns.indexOf(turn);
    const asked = conversation.turns
      .slice(0, index)
      .reverse()
      .find((t) => t.role === 'user');
    const prompt = asked?.role === 'user' ? asked.content : '';
    try {
      const jobId = await this.media.adoptImages(images, prompt, turn.model);
      if (conversation.turns.includes(turn))
        this.addCard(conversation, jobId, { kind: 'image', prompt, model: turn.model });
    } catch (error) {
      this.logger.warn(`The pictures of a reply could not be kept: ${(error as Error).message}`);
    }
  }

  /** A reply turn that shows the media job's card. */
  private addCard(
    conversation: Conversation,
    jobId: string,
    job: { kind: NonNullable<AssistantTurn['media']>['kind']; prompt: string; model: string },
  ): void {
    const card = assistantTurn(job.model);
    card.status = 'complete';
    card.media = { jobId, kind: job.kind, prompt: job.prompt };
    this.host.append(conversation, card);
    this.media.add(jobId);
    void this.host.save(conversation).then(() => this.host.postHistory());
  }
}
