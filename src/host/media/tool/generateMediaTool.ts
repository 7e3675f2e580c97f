import * as vscode from 'vscode';
import type { SpendHold } from '../../../core/cost/spendHolds';
import { isFinal } from '../../../core/media/mediaJob';
import type { MediaJob } from '../../../core/media/mediaJob';
import { waitForJob } from '../../../core/media/waitForJob';
import type { WaitOutcome } from '../../../core/media/waitForJob';
import { GatewayError } from '../../../api/errors';
import type { MediaModelInfo } from '../../../api/mediaRoutes';
import {
  checkMediaChoice,
  describeMediaModel,
  listMediaModelLines,
  mediaModelsHeading,
} from '../../../core/mediaStudio/mediaModelChoice';
import { estimateMediaCost } from '../../../core/mediaStudio/mediaPrice';
import type { PriceEstimate } from '../../../core/mediaStudio/mediaPrice';
import {
  ConfirmedPlans,
  confirmationLines,
  endedWithoutResult,
  parseGenerateMediaInput,
  parseListModels,
  planToolRequest,
} from '../../../core/mediaStudio/toolInput';
import type { GenerateMediaInput, ListedKind, ToolPlan } from '../../../core/mediaStudio/toolInput';
import { inertText, shorten } from '../../../core/util/text';
import type { Settings } from '../../config/settings';
import type { MediaStudioActions } from '../results/studioActions';

/**
 * `gateway_generateMedia`, for VS Code's agents and chat participants: asks the user first
 * (listing the model, the prompt and every parameter that will be sent), runs the job to
 * completion with progress and cancellation, saves the result into the workspace and answers
 * with the saved paths. What runs is the plan that was confirmed, or nothing.
 */
/**
 * How long the tool waits for a job before it gives up waiting (the job goes on). An agent's turn
 * must end: a job left queued for hours, or one whose checks are held, would hold it forever.
 */
export const TOOL_WAIT_MS = 15 * 60_000;
/**
 * How long a paid call's hold follows a job the tool stopped waiting for: when it ends, its
 * reported cost replaces the estimate. A job that has not ended by then keeps the estimate.
 */
export const HOLD_FOLLOW_MS = 6 * 60 * 60_000;

export class GenerateMediaTool implements vscode.LanguageModelTool<GenerateMediaInput> {
  private readonly confirmed = new ConfirmedPlans();

  constructor(
    private readonly studio: MediaStudioActions,
    private readonly settings: Settings,
  ) {}

  async prepareInvocation(
    options: vscode.LanguageModelToolInvocationPrepareOptions<GenerateMediaInput>,
  ): Promise<vscode.PreparedToolInvocation> {
    // Listing reads the catalogs only: nothing is made, saved or billed, so nothing to confirm.
    if (parseListModels(options.input)) return { invocationMessage: "Listing the gateway's media models" };
    const parsed = parseGenerateMediaInput(options.input);
    if (!parsed.ok) return { invocationMessage: 'Generating media' };
    const plan = this.plan(parsed.input);
    this.confirmed.remember(options.input, plan);
    // Made from the same plan as the request; every line is inert text, never Markdown.
    const message = new vscode.MarkdownString();
    const entry = (await this.models()).find((model) => model.id === plan.request.model);
    const catalogLine = entry ? [`In the gateway's catalogs: ${describeMediaModel(entry)}`] : [];
    message.appendText([...confirmationLines(plan), ...catalogLine].join('\n'));
    return {
      invocationMessage: `Generating media with ${inertText(plan.request.model, 100)}`,
      confirmationMessages: { title: 'Generate media through Gateway AI?', message },
    };
  }

  /** What this input would cost by its model's catalog price (the chat agent's spend caps). */
  async price(input: GenerateMediaInput): Promise<PriceEstimate> {
    const { request } = this.plan(input);
    const entry = (await this.models()).find((model) => model.id === request.model);
    return entry
      ? estimateMediaCost(entry.price, request.parameters)
      : {
          basis: `${inertText(request.model, 100)} is not in the gateway's catalogs, so its price is unknown`,
        };
  }

  invoke(
    options: vscode.LanguageModelToolInvocationOptions<GenerateMediaInput>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    return this.run(options, token);
  }

  /**
   * `invoke` for the chat agent, which held the job's estimate against its spend caps: the hold
   * ends when the job's cost is known (see `SpendHolds`), even after the tool stopped waiting.
   */
  async invokePaid(
    options: vscode.LanguageModelToolInvocationOptions<GenerateMediaInput>,
    token: vscode.CancellationToken,
    hold: SpendHold,
  ): Promise<vscode.LanguageModelToolResult> {
    let sending = false;
    let sent: string | undefined;
    try {
      return await this.run(options, token, {
        sending: () => (sending = true),
        started: (id) => (sent = id),
      });
    } catch (error) {
      // Refused before anything was sent, or by the gateway with a 4xx (no job was made): free.
      // Any other failure while sending (the network, a 5xx) may still have been billed.
      if (sent === undefined && sending && !refusedByGateway(error)) hold.settle({ kind: 'unreported' });
      throw error;
    } finally {
      if (sent === undefined) hold.settle({ kind: 'notSent' });
      else this.settleWhenEnded(sent, hold);
    }
  }

  /** Ends `hold` with the job's reported cost once it ends (now, or later while it goes on). */
  private settleWhenEnded(id: string, hold: SpendHold): void {
    const ended = (job: MediaJob | undefined): void =>
      hold.settle(job?.cost !== undefined ? { kind: 'reported', cost: job.cost } : { kind: 'unreported' });
    const job = this.studio.media.model.get(id);
    if (!job || isFinal(job)) return ended(job);
    void waitForJob(this.studio.media.model, id, { timeoutMs: HOLD_FOLLOW_MS }).then((outcome) =>
      ended(outcome.kind === 'final' ? outcome.job : undefined),
    );
  }

  private async run(
    options: vscode.LanguageModelToolInvocationOptions<GenerateMediaInput>,
    token: vscode.CancellationToken,
    watch?: { sending(): void; started(id: string): void },
  ): Promise<vscode.LanguageModelToolResult> {
    // It saves into the workspace: an agent's write, which Restricted Mode does not allow.
    if (!vscode.workspace.isTrusted)
      throw new Error(
        'This workspace is in Restricted Mode, where agents save nothing into it. Trust the workspace first (or run Gateway AI: Generate Media yourself).',
      );
    const listed = parseListModels(options.input);
    if (listed) return this.listModels(listed);
    const parsed = parseGenerateMediaInput(options.input);
    if (!parsed.ok) throw new Error(parsed.error);
    const input = parsed.input;
    const plan = this.plan(input);
    if (!this.confirmed.matches(options.input, plan))
      throw new Error(
        'The media settings changed after the confirmation was shown, so nothing was sent. Ask again to see what would be sent now.',
      );
    // A value the model's catalog entry does not offer is refused here, before anything is sent.
    const refused = checkMediaChoice(
      await this.models(),
      plan.request.model,
      undefined,
      plan.request.parameters,
    );
    if (refused) throw new Error(`Nothing was sent: ${refused}`);
    const { request, folder } = plan;
    return vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Gateway AI: generating "${shorten(inertText(input.prompt), 40)}"`,
        cancellable: true,
      },
      async (progress, progressToken) => {
        const cancelled = () => token.isCancellationRequested || progressToken.isCancellationRequested;
        if (cancelled()) throw new vscode.CancellationError();
        // While the tool waits, its progress shows the job's end; once it stopped waiting
        // (cancelled, or out of time), the usual notification tells the user about the job.
        let gaveUp = false;
        // Exactly the confirmed request: the settings' parameters are in it already.
        watch?.sending();
        const id = await this.studio.media.generate(request, {
          announce: () => cancelled() || gaveUp,
          asGiven: true,
        });
        watch?.started(id);
        const abort = new AbortController();
        const listeners = [token, progressToken].map((t) => t.onCancellationRequested(() => abort.abort()));
        let outcome: WaitOutcome;
        try {
          outcome = await waitForJob(this.studio.media.model, id, {
            timeoutMs: TOOL_WAIT_MS,
            signal: abort.signal,
            onStatus: (status) => progress.report({ message: status }),
          });
        } finally {
          for (const listener of listeners) listener.dispose();
        }
        if (outcome.kind === 'cancelled') throw new vscode.CancellationError();
        if (outcome.kind === 'removed') throw new Error('The media job was removed before it finished.');
        if (outcome.kind === 'timeout') {
          gaveUp = true;
          throw new Error(
            `The media job did not finish within ${TOOL_WAIT_MS / 60_000} minutes (it is ${outcome.job.status}), so the tool stopped waiting and saved nothing. The job goes on: it is in the Media Jobs view, and the user is told when it ends.`,
          );
        }
        const { job } = outcome;
        if (job.status !== 'completed') throw new Error(endedWithoutResult(job));
        progress.report({ message: 'saving' });
        const saved = await this.studio.save(job, folder, token);
        const paths = saved.map((file) => file.relativePath);
        const described = saved.map((file) => `${file.kind} ${file.relativePath}`).join(', ');
        return new vscode.LanguageModelToolResult([
          new vscode.LanguageModelTextPart(
            `Generated with ${request.model} and saved into the workspace: ${described}. ` +
              `Workspace-relative path${paths.length === 1 ? '' : 's'}: ${JSON.stringify(paths)}.`,
          ),
        ]);
      },
    );
  }

  /** The gateway's media models, the list Generate Media offers; none when the catalogs fail. */
  private models(): Promise<MediaModelInfo[]> {
    return this.studio.media.listMediaModels(true).catch(() => []);
  }

  private async listModels(kind: ListedKind): Promise<vscode.LanguageModelToolResult> {
    const models = await this.studio.media.listMediaModels(true);
    const only = kind === 'all' ? undefined : kind;
    const text = [
      mediaModelsHeading(models, only),
      ...listMediaModelLines(models, only),
      'Use one as "model", with its parameters in "parameters".',
    ].join('\n');
    return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
  }

  private plan(input: GenerateMediaInput): ToolPlan {
    const settings = this.settings.current.media;
    return planToolRequest(input, {
      model: settings.model,
      parameters: settings.parameters,
      saveFolder: settings.saveFolder,
    });
  }
}

/** A gateway's answer that no job was made: a 4xx status (the request was refused). */
function refusedByGateway(error: unknown): boolean {
  return (
    GatewayError.is(error) &&
    error.kind === 'http' &&
    error.status !== undefined &&
    error.status >= 400 &&
    error.status < 500
  );
}
