/**
 * A streamed reply (the client's typed deltas) → what a language-model provider reports: text,
 * reasoning, and each tool call once its arguments are complete JSON. Pure; the host turns these
 * into `vscode` part objects.
 */
import { GatewayError } from '../../api/errors';
import type { ChatDelta, ToolCall, Usage } from '../../api/types';

export type ReplyPart =
  | { kind: 'text'; value: string }
  | { kind: 'thinking'; value: string }
  | { kind: 'toolCall'; callId: string; name: string; input: Record<string, unknown> };

function parseObject(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  // An object's closing brace ends it: once it parses, no later fragment can belong to it.
  if (!trimmed.startsWith('{') || !trimmed.endsWith('}')) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Tool calls arrive as fragments keyed by `index` (the client merges them into snapshots). Each
 * call is reported exactly once: as soon as its arguments parse as a JSON object, or at the end of
 * the reply. Arguments that never became valid JSON fail the reply instead of calling a tool with
 * made-up input.
 */
export class ToolCallAssembler {
  private readonly reported = new Set<number>();
  private latest: ToolCall[] = [];

  /** Takes the newest snapshot; returns the calls that became complete. */
  update(snapshot: readonly ToolCall[]): ReplyPart[] {
    this.latest = snapshot.map((call) => ({ ...call, function: { ...call.function } }));
    const out: ReplyPart[] = [];
    this.latest.forEach((call, position) => {
      const index = call.index ?? position;
      if (this.reported.has(index) || !call.function.name) return;
      const input = parseObject(call.function.arguments);
      if (input === undefined) return;
      this.reported.add(index);
      out.push(toPart(call, index, input));
    });
    return out;
  }

  /** At the end of the reply: the calls not yet reported. */
  finish(): ReplyPart[] {
    const out: ReplyPart[] = [];
    this.latest.forEach((call, position) => {
      const index = call.index ?? position;
      if (this.reported.has(index)) return;
      if (!call.function.name) {
        throw new GatewayError({
          kind: 'invalid_response',
          message: `The model sent tool call ${index + 1} without a function name.`,
        });
      }
      const args = call.function.arguments.trim();
      const input = args === '' ? {} : parseObject(args);
      if (input === undefined) {
        throw new GatewayError({
          kind: 'invalid_response',
          message: `The model's call of the tool "${call.function.name}" has arguments that are not a JSON object.`,
        });
      }
      this.reported.add(index);
      out.push(toPart(call, index, input));
    });
    return out;
  }
}

function toPart(call: ToolCall, index: number, input: Record<string, unknown>): ReplyPart {
  return { kind: 'toolCall', callId: call.id || `call_${index}`, name: call.function.name, input };
}

/** Folds a reply's deltas into reportable parts, and keeps its usage for the log and the total. */
export class ReplyAssembler {
  private readonly tools = new ToolCallAssembler();
  usage: Usage | undefined;
  model: string | undefined;
  provider: string | undefined;
  /** The reply's id (X-Generation-Id or the chunks' `id`), to find its cost when usage has none. */
  id: string | undefined;
  finishReason: string | undefined;

  /** The parts one delta produces (often none). */
  push(delta: ChatDelta): ReplyPart[] {
    switch (delta.type) {
      case 'content':
        return delta.text ? [{ kind: 'text', value: delta.text }] : [];
      case 'reasoning':
        return delta.text ? [{ kind: 'thinking', value: delta.text }] : [];
      case 'tool_calls':
        return this.tools.update(delta.toolCalls);
      case 'usage':
        this.usage = delta.usage;
        return [];
      case 'meta':
        this.model ??= delta.model;
        this.provider ??= delta.provider;
        this.id ??= delta.id;
        return [];
      case 'finish':
        this.finishReason = delta.reason;
        return [];
      default:
        return [];
    }
  }

  /** What remains once the stream has ended. */
  finish(): ReplyPart[] {
    return this.tools.finish();
  }
}
