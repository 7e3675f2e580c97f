/** The deltas of a streamed chat reply, and the whole reply of a non-streaming one. */
import { ChatChunkReader } from './chatChunks';
import { GatewayError } from './errors';
import { foldChatDeltas } from './fold';
import { excerpt, isRecord, objectField, stringField, tryParseJson } from './json';
import type { JsonObject } from './json';
import { silentProblems } from './problems';
import type { ProblemReporter } from './problems';
import { describeErrorMetadata, parseErrorMetadata } from './errorMetadata';
import { redactExcerpt, redactSecret } from './redact';
import type { Secrets } from './redact';
import type { ChatCompletion, ChatDelta } from './types';

/**
 * Turns SSE data strings into deltas until `[DONE]`. An error chunk throws 'stream'; a data line
 * that is not JSON throws 'invalid_response' (skipping it could silently lose part of the reply);
 * an end without `[DONE]` and without a finish reason means the connection was cut: 'network'.
 */
export async function* chatDeltasFromSse(
  batches: AsyncIterable<string[]>,
  secret: Secrets,
  problems: ProblemReporter = silentProblems,
  /** Reshapes each chunk before it is read (text completions, see `textChunkAsChat`). */
  shape?: (chunk: unknown) => unknown,
): AsyncGenerator<ChatDelta> {
  const reader = new ChatChunkReader(secret, problems);
  const deltas: ChatDelta[] = [];
  let done = false;
  for await (const batch of batches) {
    // After [DONE] the rest is read (normally nothing) so the connection can be reused.
    if (done) continue;
    for (const data of batch) {
      const text = data.trim();
      if (text === '[DONE]') {
        done = true;
        break;
      }
      if (text === '') continue;
      const parsed = tryParseJson(text);
      if (!parsed.ok) {
        throw new GatewayError({
          kind: 'invalid_response',
          message: `The gateway sent a stream event that is not valid JSON: "${redactSecret(excerpt(text, 80), secret)}".`,
        });
      }
      reader.read(shape ? shape(parsed.value) : parsed.value, deltas);
      if (deltas.length > 0) {
        for (const delta of deltas) yield delta;
        deltas.length = 0;
      }
    }
  }
  if (!done && !reader.finished) {
    throw new GatewayError({
      kind: 'network',
      message: 'The connection to the gateway closed before the reply was complete.',
    });
  }
}

/**
 * A text-completion chunk (`choices[].text`, from `POST /v1/completions`) as the chat chunk the
 * reader knows: each choice's `text` becomes `delta.content`; its index and finish reason, and the
 * chunk's id, model, usage and error, stay as they are. Anything else is passed on untouched.
 */
export function textChunkAsChat(chunk: unknown): unknown {
  if (!isRecord(chunk) || !Array.isArray(chunk.choices)) return chunk;
  const choices = chunk.choices.map((choice: unknown) => {
    if (!isRecord(choice) || choice.delta !== undefined || choice.message !== undefined) return choice;
    const shaped: JsonObject = { delta: { content: typeof choice.text === 'string' ? choice.text : '' } };
    if (choice.index !== undefined) shaped.index = choice.index;
    if (choice.finish_reason !== undefined) shaped.finish_reason = choice.finish_reason;
    return shaped;
  });
  return { ...chunk, choices };
}

/** Deltas of a whole JSON reply: for a gateway that answers a stream request without streaming. */
export function chatDeltasFromJson(
  body: unknown,
  secret: Secrets,
  problems: ProblemReporter = silentProblems,
): ChatDelta[] {
  const deltas: ChatDelta[] = [];
  new ChatChunkReader(secret, problems).read(body, deltas);
  return deltas;
}

/** Parses the body of a non-streaming chat response. */
export function parseChatCompletion(
  bodyText: string,
  secret: Secrets,
  problems: ProblemReporter = silentProblems,
): ChatCompletion {
  return foldChatDeltas(chatDeltasFromJson(parseChatReply(bodyText, secret), secret, problems));
}

/** Checks a whole chat reply: JSON, not an error, with `choices`; throws a GatewayError otherwise. */
export function parseChatReply(bodyText: string, secret: Secrets): JsonObject {
  const parsed = tryParseJson(bodyText);
  if (!parsed.ok || !isRecord(parsed.value)) {
    throw new GatewayError({
      kind: 'invalid_response',
      message: `The gateway's chat reply is not valid JSON: "${redactSecret(excerpt(bodyText, 80), secret)}".`,
    });
  }
  const body = parsed.value;
  // Some gateways answer 200 with an error body when the provider failed after routing.
  if (body.error !== undefined && body.error !== null && !Array.isArray(body.choices)) {
    const details = objectField(body, 'error');
    const reason =
      typeof body.error === 'string' ? body.error : (stringField(details, 'message') ?? 'no reason given');
    const metadata = parseErrorMetadata(details?.metadata, secret);
    const provider = (metadata.provider ?? stringField(body, 'provider'))?.slice(0, 80);
    const said = redactExcerpt(reason, 1000, secret);
    const code = details?.code;
    throw new GatewayError({
      kind: 'http',
      status:
        typeof code === 'number' && Number.isInteger(code) && code >= 400 && code < 600 ? code : undefined,
      message: redactSecret(
        `${provider ? `The provider ${provider}` : 'The gateway'} answered with an error: ${said}${describeErrorMetadata(metadata, said)}`,
        secret,
      ),
      provider: provider === undefined ? undefined : redactSecret(provider, secret),
      code:
        typeof code === 'string'
          ? redactSecret(excerpt(code, 80), secret)
          : typeof code === 'number' && Number.isFinite(code)
            ? code
            : undefined,
    });
  }
  if (!Array.isArray(body.choices)) {
    throw new GatewayError({
      kind: 'invalid_response',
      message: 'The gateway\'s chat reply has no "choices".',
    });
  }
  return body;
}
