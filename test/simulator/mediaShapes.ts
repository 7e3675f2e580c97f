/**
 * Media jobs answered the way real async media APIs answer, one shape per job: `#sim:shape:<name>`
 * in the prompt (or `mediaShape` in the options for every job). Each shape has its own start
 * answer (200, 201 or 202, with or without a polling URL), its own status words, progress and
 * result fields, and `#sim:outcome:<cancelled|expired|failed>` ends it in that shape's words.
 *
 * - `openrouter`: 202, a relative `polling_url`, `pending | in_progress | completed`, relative
 *   `unsigned_urls` readable only with the key, `usage.cost`.
 * - `openai`: `object: "video"`, `queued | in_progress | completed`, `progress` 0–100, the file at
 *   `<status URL>/content` (with the key).
 * - `replicate`: 201, `urls.get` to poll, `starting | processing | succeeded`, `output` as a bare
 *   URL string on the second origin.
 * - `fal`: 202 with `request_id` and a base-relative `status_url`, 202 `IN_QUEUE` (with
 *   `queue_position`) and `IN_PROGRESS` until a 200 `COMPLETED` with `images[]`.
 * - `runway`: a bare `{id}`, `THROTTLED | PENDING | RUNNING | SUCCEEDED`, `progress` 0–1,
 *   `output[]`; failures as `failure` and `failureCode`.
 * - `result-urls`, `resultUrls`: those lists, on the second origin; `videoUrl`: a root-relative
 *   link to the key-protected file.
 */
import type { SimulatorCore } from './context';
import type { MediaJob, MediaPhase } from './media';
import type { ScenarioSet } from './scenarios';

export const MEDIA_SHAPES = [
  'openrouter',
  'openai',
  'replicate',
  'fal',
  'runway',
  'result-urls',
  'resultUrls',
  'videoUrl',
] as const;
export type MediaShape = (typeof MEDIA_SHAPES)[number];

/** The cost an OpenRouter-shaped video job reports, in credits. */
export const VIDEO_COST = 0.5;

/** What the simulator offers a shape needs besides the job. */
export interface ShapeHost extends Pick<SimulatorCore, 'origin'> {
  /** The second loopback origin, where results that must never get the key are served. */
  readonly resultOrigin: string;
}

export interface ShapedAnswer {
  status: number;
  body: Record<string, unknown>;
}

export function mediaShapeOf(scenarios: ScenarioSet, fallback?: MediaShape): MediaShape | undefined {
  const arg = scenarios.find('shape')?.arg;
  return MEDIA_SHAPES.find((shape) => shape === arg) ?? fallback;
}

/** A tiny MP4 (an `ftyp` box), served as the videos' file. */
export const MP4_BYTES = Buffer.concat([
  Buffer.from([0, 0, 0, 0x18]),
  Buffer.from('ftypisom', 'ascii'),
  Buffer.from([0, 0, 2, 0]),
  Buffer.from('isommp42', 'ascii'),
]);

const path = (id: string): string => encodeURIComponent(id);

/** Root-relative paths of the key-protected video file, per shape. */
export function contentPath(shape: MediaShape, id: string): string {
  return shape === 'openrouter' ? `/api/v1/videos/${path(id)}/content` : `/api/v1/media/${path(id)}/content`;
}

export function shapedStart(job: MediaJob, shape: MediaShape, host: ShapeHost): ShapedAnswer {
  const id = path(job.id);
  switch (shape) {
    case 'openrouter':
      return { status: 202, body: { id: job.id, polling_url: `/api/v1/videos/${id}`, status: 'pending' } };
    case 'openai':
      return {
        status: 200,
        body: { id: job.id, object: 'video', model: job.model, status: 'queued', progress: 0 },
      };
    case 'replicate':
      return {
        status: 201,
        body: {
          id: job.id,
          status: 'starting',
          output: null,
          urls: {
            get: `${host.origin}/api/v1/predictions/${id}`,
            cancel: `${host.origin}/api/v1/predictions/${id}/cancel`,
          },
        },
      };
    case 'fal':
      return {
        status: 202,
        body: {
          request_id: job.id,
          status: 'IN_QUEUE',
          queue_position: 3,
          status_url: `v1/fal/requests/${id}/status`,
        },
      };
    case 'runway':
      return { status: 200, body: { id: job.id } };
    default:
      return { status: 200, body: { id: job.id, status: 'pending' } };
  }
}

/** Status words per shape: queued, processing, completed, and the outcomes. */
const WORDS: Record<MediaShape, Record<string, string>> = {
  openrouter: { queued: 'pending', processing: 'in_progress', completed: 'completed' },
  openai: { queued: 'queued', processing: 'in_progress', completed: 'completed' },
  replicate: { queued: 'starting', processing: 'processing', completed: 'succeeded', cancelled: 'canceled' },
  fal: { queued: 'IN_QUEUE', processing: 'IN_PROGRESS', completed: 'COMPLETED' },
  runway: {
    queued: 'PENDING',
    processing: 'RUNNING',
    completed: 'SUCCEEDED',
    cancelled: 'CANCELLED',
    failed: 'FAILED',
  },
  'result-urls': { queued: 'queued', processing: 'processing', completed: 'succeeded' },
  resultUrls: { queued: 'pending', processing: 'running', completed: 'success' },
  videoUrl: { queued: 'queued', processing: 'processing', completed: 'completed' },
};

export function shapedStatus(
  job: MediaJob,
  shape: MediaShape,
  phase: MediaPhase,
  host: ShapeHost,
): ShapedAnswer {
  const words = WORDS[shape];
  const word = (status: string): string => words[status] ?? status;
  // OpenRouter names its polling URL in every answer (its SDK's schema requires it).
  const idField =
    shape === 'fal'
      ? { request_id: job.id }
      : shape === 'openrouter'
        ? { id: job.id, polling_url: `/api/v1/videos/${path(job.id)}` }
        : { id: job.id };
  if (phase.name === 'queued') {
    const body: Record<string, unknown> = { ...idField, status: word('queued') };
    // Runway holds a job back first when the account is at its limit.
    if (shape === 'runway' && job.polls === 1) body.status = 'THROTTLED';
    if (shape === 'fal') body.queue_position = Math.max(0, 3 - job.polls);
    if (shape === 'openai') body.progress = 0;
    return { status: shape === 'fal' ? 202 : 200, body };
  }
  if (phase.name === 'processing') {
    const body: Record<string, unknown> = { ...idField, status: word('processing') };
    if (shape === 'openai') body.progress = Math.round(phase.progress * 100);
    else if (shape === 'runway') body.progress = phase.progress;
    return { status: shape === 'fal' ? 202 : 200, body };
  }
  const outcome = job.markers.find('outcome')?.arg?.toLowerCase();
  if (outcome === 'cancelled' || outcome === 'expired' || outcome === 'failed') {
    const body: Record<string, unknown> = { ...idField, status: word(outcome) };
    if (outcome === 'failed' && shape === 'runway') {
      body.failure = 'The prompt was flagged by moderation (simulated).';
      body.failureCode = 'SAFETY.INPUT.TEXT';
    } else if (outcome === 'failed' && shape === 'openrouter')
      body.error = 'The provider failed (simulated).';
    else if (outcome === 'failed')
      body.error = { message: 'The provider failed (simulated).', code: 'E_SIM' };
    return { status: 200, body };
  }
  const cdn = `${host.resultOrigin}/files/${path(job.id)}.png`;
  switch (shape) {
    case 'openrouter':
      return {
        status: 200,
        body: {
          ...idField,
          status: 'completed',
          // Relative to the base URL, and readable only with the key.
          unsigned_urls: [`v1/videos/${path(job.id)}/content?index=0`],
          usage: { cost: VIDEO_COST },
        },
      };
    case 'openai':
      return {
        status: 200,
        body: {
          id: job.id,
          object: 'video',
          status: 'completed',
          progress: 100,
          expires_at: Math.floor(Date.now() / 1000) + 3600,
        },
      };
    case 'replicate':
      return { status: 200, body: { id: job.id, status: word('completed'), output: cdn } };
    case 'fal':
      return {
        status: 200,
        body: {
          request_id: job.id,
          status: 'COMPLETED',
          images: [{ url: cdn, content_type: 'image/png', width: 64, height: 64 }],
        },
      };
    case 'runway':
      return { status: 200, body: { id: job.id, status: 'SUCCEEDED', progress: 1, output: [cdn] } };
    case 'result-urls':
      return { status: 200, body: { id: job.id, status: word('completed'), result_urls: [cdn] } };
    case 'resultUrls':
      return { status: 200, body: { id: job.id, status: word('completed'), resultUrls: [cdn] } };
    case 'videoUrl':
      return {
        status: 200,
        body: { id: job.id, status: 'completed', videoUrl: contentPath('videoUrl', job.id) },
      };
  }
}
