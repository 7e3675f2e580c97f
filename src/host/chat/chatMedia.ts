import * as vscode from 'vscode';
import type { ChatImage } from '../../api/chatImages';
import type { MediaModelInfo } from '../../api/mediaRoutes';
import type { MediaRecord } from '../../api/types';
import type { CatalogModel } from '../../core/catalog/catalogCodec';
import { Command } from '../../core/ids';
import type { MediaJob } from '../../core/media/mediaJob';
import type { MediaJobsChange } from '../../core/media/mediaJobModel';
import { checkPlan, planChatMedia } from '../../core/mediaStudio/chatMediaPlan';
import { mediaCommandKind } from '../../core/mediaStudio/mediaCommand';
import {
  checkMediaChoice,
  listMediaModelLines,
  mediaModelsHeading,
} from '../../core/mediaStudio/mediaModelChoice';
import type { ChatMediaPlan } from '../../core/mediaStudio/chatMediaPlan';
import { REMOVED_STATUS } from '../../core/protocol/mediaCardProtocol';
import type { MediaCardAction, MediaCardOutput, MediaCardState } from '../../core/protocol/mediaCardProtocol';
import type { HostMessage } from '../../core/protocol/chatProtocol';
import type { Event } from '../../core/util/emitter';
import { Disposable } from '../../core/util/lifecycle';
import type { Settings } from '../config/settings';
import type { Logger } from '../log/logger';
import type { GenerateArgs, GenerateOptions, PreviewItem } from '../media/jobs/mediaJobs';
import { shownText } from '../../core/mediaStudio/resultItems';
import { notify } from '../notify';

/**
 * What the chat needs of the media-jobs feature (MediaJobsFeature, loaded on first use): the one
 * job model the Media Jobs tree shows too, starting jobs, and results as local files.
 */
export interface ChatMediaJobs {
  readonly model: {
    get(id: string): MediaJob | undefined;
    readonly onDidChange: Event<MediaJobsChange>;
  };
  generate(args: GenerateArgs, options?: GenerateOptions): Promise<string>;
  /** The gateway's media models, the list Generate Media offers. */
  listMediaModels(reuse?: boolean): Promise<MediaModelInfo[]>;
  /** Pictures a chat reply brought, as a completed job; its id. */
  adopt(args: { prompt: string; model: string }, record: MediaRecord): Promise<string>;
  resultItems(job: MediaJob): Promise<PreviewItem[]>;
}

export interface ChatMediaDeps {
  /** Loads the media feature on first call. */
  media: () => ChatMediaJobs;
  /** The chat view's webview while it is open: result files become its resource URLs. */
  webview: () => vscode.Webview | undefined;
  /** Whether the chat view is in sight: a card there shows a job's end, so no notification. */
  visible: () => boolean;
  catalogEntry: (model: string) => Promise<CatalogModel | undefined>;
  post: (message: HostMessage) => void;
  settings: Settings;
  logger: Logger;
}

/** Where a card's button goes: the media studio's own commands, given the job id. */
const ACTION_COMMANDS: Record<Exclude<MediaCardAction, 'copyPath'>, string> = {
  open: Command.openMediaResult,
  save: Command.saveMediaResult,
  insert: Command.insertMediaResult,
  rerun: Command.rerunMediaJob,
  variation: Command.mediaVariation,
};

/**
 * The chat's side of media jobs: plans a `/image …` prompt, starts it through the media-jobs
 * feature, follows the jobs the open conversation has cards for and posts their state, and
 * routes the cards' buttons. The media feature is loaded only once a card needs it.
 */
export class ChatMedia extends Disposable {
  private jobs: ChatMediaJobs | undefined;
  /** Jobs with a card in the open conversation. */
  private shown = new Set<string>();
  /** The last state posted per job, by the job's `updatedAt`: results are prepared once. */
  private readonly posted = new Map<string, { updatedAt: number; state: MediaCardState }>();

  constructor(private readonly deps: ChatMediaDeps) {
    super();
  }

  /**
   * The plan for a media command, an error for the user, or undefined for an ordinary prompt.
   * A command word alone (`/video`) answers with the gateway's models of that kind, their prices
   * and parameters. A model the media catalogs list is checked against its entry there (what it
   * makes, the values each parameter takes); any other against the model catalog.
   */
  async plan(
    text: string,
  ): Promise<{ ok: true; plan: ChatMediaPlan } | { ok: false; error: string } | undefined> {
    const kind = mediaCommandKind(text);
    const mediaKind = kind === 'media' ? undefined : kind;
    if (kind && text.trim() === `/${kind}`) {
      const models = await this.mediaModels();
      return {
        ok: false,
        error: [
          mediaModelsHeading(models, mediaKind),
          ...listMediaModelLines(models, mediaKind),
          `/${kind} needs a prompt: /${kind} <prompt> --model <id>, any parameter as --name value.`,
        ].join('\n'),
      };
    }
    const planned = planChatMedia(text, this.deps.settings.current.media);
    if (!planned?.ok) return planned;
    const { plan } = planned;
    const models = await this.mediaModels();
    const refused = checkMediaChoice(models, plan.model, mediaKind, plan.parameters);
    if (refused) return { ok: false, error: refused };
    if (models.some((model) => model.id === plan.model)) return planned;
    const error = checkPlan(plan, await this.deps.catalogEntry(plan.model));
    return error ? { ok: false, error } : planned;
  }

  /** The media catalogs' models, or none when they cannot be read (the gateway judges then). */
  private async mediaModels(): Promise<MediaModelInfo[]> {
    try {
      return await this.media().listMediaModels(true);
    } catch (error) {
      this.deps.logger.warn(`The media model catalogs could not be read: ${(error as Error).message}`);
      return [];
    }
  }

  /**
   * Starts the job in the media-jobs feature (so the tree shows it too); returns its id. Its end
   * is announced unless its card is on screen then: the chat in sight, showing its conversation.
   */
  async start(plan: ChatMediaPlan): Promise<string> {
    // The id is known once the gateway accepted the job; the job can end only after that.
    const started: { id?: string } = {};
    started.id = await this.media().generate(
      { prompt: plan.prompt, model: plan.model, parameters: plan.parameters },
      {
        announce: () => !(started.id !== undefined && this.shown.has(started.id) && this.deps.visible()),
      },
    );
    return started.id;
  }

  /**
   * The pictures a chat reply drew (streamed `delta.images`) as a completed media job, so they
   * show as any result does: kept as files, in the gallery and as a card. Its id.
   */
  adoptImages(images: readonly ChatImage[], prompt: string, model: string): Promise<string> {
    return this.media().adopt(
      { prompt, model },
      {
        id: '',
        status: 'completed',
        outputs: images.map((image) => ({ kind: 'data', data: image.data, mimeType: image.mimeType })),
      },
    );
  }

  /** The open conversation's cards: their jobs are followed and their states posted now. */
  show(jobIds: readonly string[]): void {
    this.shown = new Set(jobIds);
    if (jobIds.length === 0) return;
    try {
      this.media();
    } catch (error) {
      // The chat itself must still show: the cards stay at "Looking up the job".
      this.deps.logger.error('The media feature could not be loaded for the chat', error);
      return;
    }
    for (const id of jobIds) void this.postState(id, true);
  }

  /** A card was added to the open conversation. */
  add(jobId: string): void {
    this.shown.add(jobId);
    void this.postState(jobId, true);
  }

  async act(action: MediaCardAction, jobId: string): Promise<string | undefined> {
    if (action === 'copyPath') return this.copyPath(jobId);
    const result: unknown = await vscode.commands.executeCommand(ACTION_COMMANDS[action], jobId);
    // Re-run and Variation answer with the new job's id; the chat shows a card for it.
    return (action === 'rerun' || action === 'variation') && typeof result === 'string' ? result : undefined;
  }

  private async copyPath(jobId: string): Promise<undefined> {
    const job = this.media().model.get(jobId);
    const file =
      job?.status === 'completed' ? (await this.media().resultItems(job)).find((i) => i.file) : undefined;
    if (!file?.file) {
      void notify.info('Gateway AI: this job has no result file to copy the path of.');
      return undefined;
    }
    await vscode.env.clipboard.writeText(file.file.fsPath);
    return undefined;
  }

  private media(): ChatMediaJobs {
    if (!this.jobs) {
      this.jobs = this.deps.media();
      this.register(this.jobs.model.onDidChange((change) => this.onChange(change)));
    }
    return this.jobs;
  }

  private onChange(change: MediaJobsChange): void {
    for (const id of change.changed) if (this.shown.has(id)) void this.postState(id, false);
  }

  private async postState(jobId: string, always: boolean): Promise<void> {
    try {
      const job = this.media().model.get(jobId);
      const last = this.posted.get(jobId);
      let state: MediaCardState;
      if (last && job && last.updatedAt === job.updatedAt && !last.state.preparing) {
        if (!always) return;
        state = last.state;
      } else {
        state = await this.cardState(jobId, job);
        if (job) this.posted.set(jobId, { updatedAt: job.updatedAt, state });
      }
      // The conversation may have changed while results were made ready.
      if (this.shown.has(jobId)) this.deps.post({ type: 'mediaJob', job: state });
    } catch (error) {
      this.deps.logger.warn(
        `The chat's card of media job ${jobId} could not be updated: ${(error as Error).message}`,
      );
    }
  }

  private async cardState(jobId: string, job: MediaJob | undefined): Promise<MediaCardState> {
    if (!job) return { jobId, status: REMOVED_STATUS, model: '', createdAt: 0, outputs: [] };
    const state: MediaCardState = {
      jobId,
      status: job.status,
      model: job.model,
      createdAt: job.createdAt,
      outputs: [],
    };
    if (job.finishedAt !== undefined) state.finishedAt = job.finishedAt;
    if (job.error) state.error = job.error;
    if (job.cost !== undefined) state.cost = job.cost;
    if (job.progress !== undefined) state.progress = job.progress;
    if (job.status !== 'completed') return state;
    const webview = this.deps.webview();
    // Inline results are being moved into files (a change follows); without a view, later.
    if (!webview || job.outputs.some((output) => output.kind === 'data'))
      return { ...state, preparing: true };
    const items = await this.media().resultItems(job);
    state.outputs = items.map((item) => cardOutput(item, webview));
    return state;
  }
}

/** A result as the card shows it: a local file as the webview's resource URL, or text. Never remote. */
function cardOutput(item: PreviewItem, webview: vscode.Webview): MediaCardOutput {
  // A text result shows its text (a text file its beginning), cut to a length a card can hold.
  if (item.kind === 'text')
    return item.problem
      ? { kind: 'file', note: item.problem }
      : { kind: 'text', text: shownText(item.text ?? '') };
  if (item.file && item.kind !== 'file')
    return { kind: item.kind, src: webview.asWebviewUri(item.file).toString() };
  return { kind: 'file', note: item.problem ?? 'This result cannot be shown here; open it or save it.' };
}
