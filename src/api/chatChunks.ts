/**
 * OpenAI/OpenRouter-shaped chat JSON → typed deltas. The same reader serves stream chunks
 * (`choices[].delta`) and whole responses (`choices[].message`), so both paths agree on every
 * variant: `reasoning` or `reasoning_content`, annotations on the delta or the message, tool calls
 * arriving in fragments keyed by `index`.
 */
import { GatewayError } from './errors';
import { isRecord, objectField, stringField } from './json';
import type { JsonObject } from './json';
import { redactSecret } from './redact';
import type { Annotation, ChatDelta, ToolCall } from './types';

export class ChatChunkReader {
  private metaSent = false;
  private readonly toolCalls: ToolCall[] = [];
  /** A finish_reason was seen: the reply is complete even if the stream ends without [DONE]. */
  finished = false;

  constructor(private readonly secret: string) {}

  /** Appends the deltas carried by one chunk to `out`; throws on an error chunk. */
  read(chunk: unknown, out: ChatDelta[]): void {
    if (!isRecord(chunk)) return;
    if (chunk.error !== undefined && chunk.error !== null) throw this.streamError(chunk);
    if (!this.metaSent) {
      const id = stringField(chunk, 'id');
      const model = stringField(chunk, 'model');
      const provider = stringField(chunk, 'provider');
      if (id !== undefined || model !== undefined || provider !== undefined) {
        this.metaSent = true;
        out.push({ type: 'meta', id, model, provider });
      }
    }
    const choices: readonly unknown[] = Array.isArray(chunk.choices) ? (chunk.choices as unknown[]) : [];
    // Only one completion is ever requested (n = 1); take choice 0 wherever it sits.
    const choice = choices.find((c) => isRecord(c) && (c.index === 0 || c.index === undefined));
    if (isRecord(choice)) this.readChoice(choice, out);
    if (isRecord(chunk.usage)) out.push({ type: 'usage', usage: chunk.usage });
  }

  private readChoice(choice: JsonObject, out: ChatDelta[]): void {
    const delta = objectField(choice, 'delta') ?? objectField(choice, 'message');
    if (delta) {
      const reasoning = stringField(delta, 'reasoning', 'reasoning_content');
      if (reasoning) out.push({ type: 'reasoning', text: reasoning });
      if (Array.isArray(delta.reasoning_details) && delta.reasoning_details.length > 0) {
        out.push({ type: 'reasoning_details', details: delta.reasoning_details });
      }
      const content = contentText(delta.content);
      if (content) out.push({ type: 'content', text: content });
      if (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0) {
        this.mergeToolCalls(delta.tool_calls);
        out.push({ type: 'tool_calls', toolCalls: this.toolCalls.map(copyToolCall) });
      }
    }
    const annotations = delta?.annotations ?? objectField(choice, 'message')?.annotations;
    if (Array.isArray(annotations) && annotations.length > 0) {
      out.push({ type: 'annotations', annotations: annotations.filter(isRecord) as Annotation[] });
    }
    const finishReason = stringField(choice, 'finish_reason');
    if (finishReason) {
      this.finished = true;
      out.push({ type: 'finish', reason: finishReason });
    }
  }

  private mergeToolCalls(fragments: unknown[]): void {
    fragments.forEach((fragment, position) => {
      if (!isRecord(fragment)) return;
      const index = typeof fragment.index === 'number' ? fragment.index : position;
      let call = this.toolCalls.find((existing) => existing.index === index);
      if (!call) {
        call = { index, type: 'function', function: { name: '', arguments: '' } };
        this.toolCalls.push(call);
        this.toolCalls.sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
      }
      const id = stringField(fragment, 'id');
      if (id) call.id = id;
      const type = stringField(fragment, 'type');
      if (type) call.type = type;
      const fn = objectField(fragment, 'function');
      const name = stringField(fn, 'name');
      // The name normally comes whole in the first fragment; some providers repeat it.
      if (name && name !== call.function.name) call.function.name += name;
      const args = fn?.arguments;
      if (typeof args === 'string') call.function.arguments += args;
      else if (isRecord(args)) call.function.arguments += JSON.stringify(args);
    });
  }

  private streamError(chunk: JsonObject): GatewayError {
    const error = chunk.error;
    const details = isRecord(error) ? error : undefined;
    const reason = typeof error === 'string' ? error : (stringField(details, 'message') ?? 'no reason given');
    const metadata = objectField(details, 'metadata');
    const provider = stringField(metadata, 'provider_name') ?? stringField(chunk, 'provider');
    const code = details?.code;
    const by = provider ? `The provider ${provider}` : 'The gateway';
    return new GatewayError({
      kind: 'stream',
      message: redactSecret(`${by} ended the reply with an error: ${reason}`, this.secret),
      provider,
      code: typeof code === 'string' || typeof code === 'number' ? code : undefined,
    });
  }
}

/** Message content may be a string or a list of parts ({type:'text', text}). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) =>
      typeof part === 'string' ? part : (stringField(isRecord(part) ? part : undefined, 'text') ?? ''),
    )
    .join('');
}

function copyToolCall(call: ToolCall): ToolCall {
  return { ...call, function: { ...call.function } };
}
