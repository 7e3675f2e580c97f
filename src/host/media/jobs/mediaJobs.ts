import type * as vscode from 'vscode';
import type { MediaModelInfo } from '../../../api/mediaRoutes';
import type { MediaJob } from '../../../core/media/mediaJob';
import type { MediaJobModel } from '../../../core/media/mediaJobModel';
import type { ResultItem } from '../../../core/mediaStudio/resultItems';
import type { ApiKeyStore } from '../../auth/apiKeyStore';
import type { Settings } from '../../config/settings';
import type { GatewayService } from '../../gateway/gatewayService';
import type { Logger } from '../../log/logger';
import type { StorageReports } from '../../storage/storageReports';

/** What a media job starts from; the settings give the model and parameters not given here. */
export interface GenerateArgs {
  prompt: string;
  model?: string;
  parameters?: Record<string, unknown>;
}

/**
 * One output of a completed job as the host holds it: a local file (a remote one is downloaded
 * first) or text. What the preview, the chat's card and saving are given.
 */
export type PreviewItem = ResultItem<vscode.Uri>;

/** How a job started by another part of the extension ends. */
export interface GenerateOptions {
  /**
   * Asked once, when the job ends: whether to show the "completed" or "failed" notification.
   * False when the starter shows the end itself right now (a chat card in sight, an agent's tool
   * still waiting). Without it, the notification always shows.
   */
  announce?: () => boolean;
  /**
   * The model and parameters are final: the settings' parameters are not added (the agents' tool
   * showed the user exactly what is sent, settings included).
   */
  asGiven?: boolean;
  /**
   * The parameters are a stored job's (Re-run, Variation): the reference images it keeps as files
   * are read back into the request. Nothing else is ever read from the reference store, so a
   * model or a setting that names a stored reference sends only what it wrote.
   */
  storedParameters?: boolean;
}

/** What the media-jobs feature is built from (mediaLoader.ts hands it over). */
export interface MediaJobsDeps {
  context: vscode.ExtensionContext;
  gateway: GatewayService;
  apiKey: ApiKeyStore;
  settings: Settings;
  logger: Logger;
  /** A picker of the catalog's media models (step 2 of Generate Media); an input box without it. */
  pickMediaModel?: (current: string) => Promise<string | undefined>;
  /** The Media Jobs tree view, created at activation. */
  treeView: vscode.TreeView<MediaJob>;
  reports?: StorageReports;
  /** Each job this window saw finish with a cost the gateway reported: for today's cost. */
  onJobCost?: (cost: number) => void;
}

/**
 * What the rest of the extension (the studio, its gallery and the agents' tool) may use of the
 * media-jobs feature. The feature implements it; its users depend on this, never on the feature's
 * class, so the feature can own the studio without an import running back.
 */
export interface MediaJobs {
  /** Every job and its changes: the one model the tree, the gallery and the chat follow. */
  readonly model: MediaJobModel;
  readonly store: {
    /** The folder of downloaded results (for webviews' local resource roots). */
    readonly folder: vscode.Uri;
    /** The folder of reference images, one file per image, named in jobs' parameters. */
    readonly referencesFolder: vscode.Uri;
    fileFor(jobId: string, index: number, mimeType: string | undefined): vscode.Uri;
    /** When the job with this id was last removed, as far as this window knows. */
    removedAt(id: string): number | undefined;
  };
  /**
   * Resolves once the stored jobs were loaded: true when they could be read. Until then the
   * model may lack jobs that exist, so nothing is deleted for lacking a job before.
   */
  whenLoaded(): Promise<boolean>;
  /** The Media Jobs tree, with its selection. */
  readonly treeView: vscode.TreeView<MediaJob>;
  /** Starts a job; resolves with its id once the gateway accepted it. */
  generate(args: GenerateArgs, options?: GenerateOptions): Promise<string>;
  /** The gateway's media models (the list Generate Media offers); `reuse`: a recent list will do. */
  listMediaModels(reuse?: boolean): Promise<MediaModelInfo[]>;
  remove(id: string): Promise<void>;
  open(job: MediaJob): Promise<unknown>;
  /** The job's results as local files (downloaded once), for previews and saving. */
  resultItems(job: MediaJob, token?: vscode.CancellationToken): Promise<PreviewItem[]>;
}

/** The job a command was given: its id, or an object with an `id` (a tree item's job). */
export function jobFrom(jobs: Pick<MediaJobs, 'model'>, value: unknown): MediaJob | undefined {
  const id =
    typeof value === 'string'
      ? value
      : value && typeof value === 'object' && 'id' in value
        ? String(value.id)
        : undefined;
  return id ? jobs.model.get(id) : undefined;
}
