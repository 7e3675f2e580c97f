/**
 * POST /api/v1/completions: text completion (fill-in-the-middle when the body has `suffix`), whole
 * or streamed as `choices[].text` chunks, with the scenario failures of the chat route. What it
 * answers is scripted by the tests (`CompletionScript`); the same script, while set, also answers
 * chat requests, so the inline completions' chat path can be tested with the same words.
 */
import { respondWithFailure } from './context';
import type { RequestContext, SimulatorCore } from './context';
import { isRecord, sendError, sendJson } from './respond';
import { splitText, tokens } from './replies';
import { writeSse } from './sseWriter';
import type { SseItem } from './sseWriter';

/** What the completion routes answer while a test has set it. */
export interface CompletionScript {
  /** The model's text, or a function of the request's prompt and suffix (the chat path: '' suffix). */
  text: string | ((prompt: string, suffix: string) => string);
  /** Held back before the response headers: long enough for a test to type while it waits. */
  firstByteDelayMs?: number;
  /** Pause between two pieces of the text. */
  pieceDelayMs?: number;
  /** Characters per streamed piece (default 8). */
  pieceSize?: number;
  /** `usage.cost` in the last chunk (default: priced from the token counts). */
  cost?: number;
}

export interface ScriptedCore extends SimulatorCore {
  completionScript: CompletionScript | undefined;
}

const DEFAULT_TEXT = 'completion()';

export async function handleCompletions(context: RequestContext, core: ScriptedCore): Promise<void> {
  const { body, response } = context;
  if (!isRecord(body)) return sendError(response, 400, 'The request body must be a JSON object.');
  const model = body.model;
  if (typeof model !== 'string' || !/^[^/\s]+\/\S+$/.test(model)) {
    return sendError(response, 400, `${JSON.stringify(model ?? null)} is not a valid model ID.`);
  }
  if (typeof body.prompt !== 'string') return sendError(response, 400, '"prompt" must be a string.');
  if (context.apiKey.includes('forbidden')) {
    return sendError(response, 403, `Key ${context.apiKey} is not allowed to use model ${model}.`);
  }
  const scenarios = core.scenariosFor(context, []);
  context.record.scenarios = scenarios.names();
  if (respondWithFailure(context, core, scenarios, 'completions')) return;
  const suffix = typeof body.suffix === 'string' ? body.suffix : '';
  await answerScripted(context, core, { model, prompt: body.prompt, suffix, chat: false });
}

/** A chat request answered by the script (only while one is set): the inline chat path. */
export function answersChat(core: ScriptedCore): boolean {
  return core.completionScript !== undefined;
}

export async function answerScripted(
  context: RequestContext,
  core: ScriptedCore,
  request: { model: string; prompt: string; suffix: string; chat: boolean },
): Promise<void> {
  const script = core.completionScript ?? { text: DEFAULT_TEXT };
  const text = typeof script.text === 'function' ? script.text(request.prompt, request.suffix) : script.text;
  const { response } = context;
  if (script.firstByteDelayMs) {
    // Over early when the client goes away: that is what the cancellation tests wait for.
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, script.firstByteDelayMs);
      response.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    if (response.destroyed || response.writableEnded) return;
  }
  const id = `gen-sim-${context.record.id}`;
  const promptTokens = tokens(request.prompt + request.suffix);
  const completionTokens = tokens(text);
  const usage = {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    // Simulated prices: $0.15 / $0.60 per million tokens, as the chat route.
    cost: script.cost ?? Number(((promptTokens * 0.15 + completionTokens * 0.6) / 1e6).toFixed(8)),
  };
  const base = {
    id,
    model: request.model,
    provider: core.providerName,
    created: Math.floor(Date.now() / 1000),
  };
  const choice = (piece: string, finish: string | null): Record<string, unknown> =>
    request.chat
      ? { index: 0, delta: { role: 'assistant', content: piece }, finish_reason: finish }
      : { index: 0, text: piece, finish_reason: finish };
  const object = request.chat ? 'chat.completion.chunk' : 'text_completion';
  if (!isRecord(context.body) || context.body.stream !== true) {
    const whole = request.chat
      ? { index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }
      : { index: 0, text, finish_reason: 'stop' };
    return sendJson(response, 200, { ...base, object, choices: [whole], usage });
  }
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
  });
  response.flushHeaders();
  const items: SseItem[] = splitText(text, script.pieceSize ?? 8).map((piece) => ({
    kind: 'data',
    json: { ...base, object, choices: [choice(piece, null)] },
  }));
  items.push(
    { kind: 'data', json: { ...base, object, choices: [choice('', 'stop')] } },
    { kind: 'data', json: { ...base, object, choices: [], usage } },
    { kind: 'done' },
  );
  await writeSse(response, items, {
    delayMs: script.pieceDelayMs ?? 0,
    crlf: false,
    onDrop: () => context.markDropped(),
  });
}
