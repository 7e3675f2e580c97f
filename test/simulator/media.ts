/**
 * POST /api/v1/media and GET /api/v1/media/{id}: jobs go queued → processing → completed (or
 * failed) on a clock measured from their creation. Prompt markers choose the result's shape.
 */
import { respondWithFailure } from './context';
import type { RequestContext, SimulatorCore } from './context';
import { colourNamedIn, gradientPng, solidPng } from './png';
import { isRecord, sendError, sendJson } from './respond';
import { mediaShapeOf, shapedStart, shapedStatus } from './mediaShapes';
import type { MediaShape, ShapeHost } from './mediaShapes';
import { ScenarioSet, scenariosFromMarkers } from './scenarios';

export interface MediaJob {
  id: string;
  model: string;
  prompt: string;
  parameters: Record<string, unknown>;
  createdAt: number;
  /** Status requests answered so far. */
  polls: number;
  /** Markers found in the prompt. */
  markers: ScenarioSet;
  seed: number;
  /** How its answers look (see mediaShapes.ts); undefined: this simulator's own shape. */
  shape?: MediaShape;
}

export class MediaJobs {
  private readonly jobs = new Map<string, MediaJob>();
  private created = 0;

  add(model: string, prompt: string, parameters: Record<string, unknown>, shape?: MediaShape): MediaJob {
    this.created += 1;
    const id = `media-${this.created}-${Math.random().toString(36).slice(2, 8)}`;
    const job: MediaJob = {
      id,
      model,
      prompt,
      parameters,
      createdAt: Date.now(),
      polls: 0,
      markers: new ScenarioSet(scenariosFromMarkers(prompt)),
      seed: this.created,
      ...(shape ? { shape } : {}),
    };
    this.jobs.set(id, job);
    return job;
  }

  get(id: string): MediaJob | undefined {
    return this.jobs.get(id);
  }

  clear(): void {
    this.jobs.clear();
  }
}

/**
 * Before the key a 403 quotes: nothing, or for a key containing `verbose` a long preamble, so the
 * key sits where a message cut to length before redaction would keep only part of it.
 */
function preamble(apiKey: string): string {
  return apiKey.includes('verbose') ? 'Access rules were checked. '.repeat(14) : '';
}

/** The simulator as media routes see it: the core, the second origin and the default shape. */
export interface MediaHost extends SimulatorCore, ShapeHost {
  readonly mediaShape?: MediaShape;
}

export function handleMediaStart(context: RequestContext, core: MediaHost, jobs: MediaJobs): void {
  const { body, response } = context;
  if (!isRecord(body)) return sendError(response, 400, 'The request body must be a JSON object.');
  const { model, prompt, ...parameters } = body;
  if (typeof model !== 'string' || !/^[^/\s]+\/\S+$/.test(model)) {
    return sendError(
      response,
      400,
      `${JSON.stringify(model ?? null)} is not a valid model ID (expected vendor/model_name).`,
    );
  }
  if (typeof prompt !== 'string' || prompt.trim() === '')
    return sendError(response, 400, 'A non-empty "prompt" is required.');
  if (context.apiKey.includes('forbidden')) {
    return sendError(
      response,
      403,
      `${preamble(context.apiKey)}Key ${context.apiKey} is not allowed to use model ${model}.`,
      {
        metadata: { provider_name: core.providerName },
      },
    );
  }
  const scenarios = core.scenariosFor(context, scenariosFromMarkers(prompt));
  context.record.scenarios = scenarios.names();
  if (respondWithFailure(context, core, scenarios, 'media-start')) return;
  const job = jobs.add(model, prompt, parameters, mediaShapeOf(scenarios, core.mediaShape));
  if (!job.shape) return sendJson(response, 200, { id: job.id, status: 'queued' });
  const answer = shapedStart(job, job.shape, core);
  sendJson(response, answer.status, answer.body);
}

export function handleMediaGet(context: RequestContext, core: MediaHost, jobs: MediaJobs, id: string): void {
  if (context.apiKey.includes('forbidden')) {
    return sendError(
      context.response,
      403,
      `${preamble(context.apiKey)}Key ${context.apiKey} is not allowed to read media jobs.`,
      {
        metadata: { provider_name: core.providerName },
      },
    );
  }
  const job = jobs.get(id);
  const scenarios = core.scenariosFor(context, job ? job.markers.list : []);
  context.record.scenarios = scenarios.names();
  if (respondWithFailure(context, core, scenarios, `media-get|${id}`)) return;
  if (!job) return sendError(context.response, 404, `Media job ${id} not found.`);
  if (!job.shape) return sendJson(context.response, 200, mediaStatus(job, core, context.apiKey));
  const answer = shapedStatus(job, job.shape, mediaPhase(job, core), core);
  sendJson(context.response, answer.status, answer.body);
}

/** Where a job stands at this status request: queued, or processing with its progress, or done. */
export type MediaPhase =
  { name: 'queued'; elapsed: number } | { name: 'processing'; progress: number } | { name: 'done' };

/** Counts this status request and says where the job stands (see MediaTimings). */
export function mediaPhase(job: MediaJob, core: SimulatorCore): MediaPhase {
  job.polls += 1;
  const { queuedPolls, processingPolls } = core.mediaTimings;
  const counted = queuedPolls !== undefined && processingPolls !== undefined;
  // With counted polls, "time" is the number of this request, on a scale of one unit per poll.
  const elapsed = counted ? job.polls - 1 : Date.now() - job.createdAt;
  const { queuedMs, processingMs } = counted
    ? { queuedMs: queuedPolls, processingMs: processingPolls }
    : core.mediaTimings;
  if (elapsed < queuedMs) return { name: 'queued', elapsed };
  if (elapsed < queuedMs + processingMs) {
    // Counted, each processing answer stands for the middle of its step (one step: 50%).
    const done = counted ? elapsed - queuedMs + 0.5 : elapsed - queuedMs;
    return { name: 'processing', progress: Math.round((done / Math.max(1, processingMs)) * 100) / 100 };
  }
  return { name: 'done' };
}

function mediaStatus(job: MediaJob, core: SimulatorCore, apiKey: string): Record<string, unknown> {
  const phase = mediaPhase(job, core);
  const { markers } = job;
  // A gateway that leaves the status out while it works, or says something nobody knows.
  const inProgress = (status: string): Record<string, unknown> =>
    markers.has('no-status')
      ? { id: job.id, progress: 0.5 }
      : markers.has('odd-status')
        ? { id: job.id, status: 'moderating' }
        : { id: job.id, status };
  if (phase.name === 'queued') return inProgress('queued');
  if (phase.name === 'processing') return { ...inProgress('processing'), progress: phase.progress };
  const finalWord = markers.find('final-status')?.arg;
  if (finalWord !== undefined) {
    const failed = /cancel|expir|reject|error|fail/i.test(finalWord);
    return failed
      ? { id: job.id, status: finalWord }
      : {
          id: job.id,
          status: finalWord,
          output: [`data:image/png;base64,${mediaPng(job).toString('base64')}`],
        };
  }
  if (markers.has('fail')) {
    return {
      id: job.id,
      status: 'failed',
      error: `Provider ${core.providerName} refused the prompt: content policy (simulated).`,
    };
  }
  if (markers.has('fail-hostile')) {
    // What a hostile or careless gateway may put in a reason: Markdown links, a command link, a
    // remote image, an autolink and codicon syntax. None of it may become active anywhere.
    return {
      id: job.id,
      status: 'failed',
      error: `Blocked. [Fix it](command:workbench.action.openSettings) or [read more](https://evil.example/docs) ![pixel](https://evil.example/p.png) <https://evil.example/auto> $(alert)`,
    };
  }
  if (markers.has('fail-echo-key')) {
    // A careless gateway that quotes the key it was sent in the reason, after a long preamble
    // (so a reason cut to length before redaction would keep part of the key).
    return {
      id: job.id,
      status: 'failed',
      error: `${'The provider said no. '.repeat(45)}Key ${apiKey} has no access to ${job.model}.`,
    };
  }
  if (markers.has('fail-object')) {
    return {
      id: job.id,
      status: 'failed',
      error: { message: `Provider ${core.providerName} ran out of capacity (simulated).`, code: 'capacity' },
    };
  }
  const base64 = mediaPng(job).toString('base64');
  let output: unknown;
  if (markers.has('text')) output = `A text result for the prompt: ${job.prompt}`;
  else if (markers.has('b64')) output = [{ b64_json: base64 }];
  else if (markers.has('nested')) output = { data: [{ b64_json: base64, mime_type: 'image/png' }] };
  else if (markers.has('url'))
    output = [{ url: `${core.origin}/api/files/${encodeURIComponent(job.id)}.png` }];
  else if (markers.has('many-outputs')) {
    const count = Number(markers.find('many-outputs')?.arg ?? 100);
    output = Array.from(
      { length: count },
      (_, index) => `${core.origin}/api/files/${encodeURIComponent(job.id)}.png?n=${index}`,
    );
  } else if (markers.has('text-data'))
    output = [`data:text/plain,${encodeURIComponent(`A text result for the prompt: ${job.prompt}`)}`];
  else if (markers.has('text-url'))
    output = [{ url: `${core.origin}/api/files/${encodeURIComponent(job.id)}.txt` }];
  else if (markers.has('text-untyped-url'))
    output = [{ url: `${core.origin}/api/files/${encodeURIComponent(job.id)}?as=text` }];
  else output = [`data:image/png;base64,${base64}`];
  // What it cost, as OpenRouter-style gateways report it (a numeric string with #sim:cost-text);
  // #sim:cost:<usd> reports that figure, #sim:no-cost none at all.
  const cost = markers.has('cost-text') ? '0.0400' : markers.numberArg('cost', MEDIA_COST);
  if (markers.has('no-cost'))
    return { id: job.id, status: 'completed', [markers.has('result') ? 'result' : 'output']: output };
  return {
    id: job.id,
    status: 'completed',
    [markers.has('result') ? 'result' : 'output']: output,
    usage: { cost },
  };
}

/** A picture of the colour the prompt names ("a red square"), or a gradient per job. */
/** The cost the simulator reports for a completed media job, in credits. */
export const MEDIA_COST = 0.04;

export function mediaPng(job: MediaJob): Buffer {
  const colour = colourNamedIn(job.prompt);
  return colour ? solidPng(64, 64, colour) : gradientPng(64, 64, job.seed);
}
