/**
 * VS Code's language-model chat messages → OpenAI chat messages. Pure: the host first turns the
 * `vscode` part classes into the plain `LmPart`s below (see src/host/lm/parts.ts), so this file
 * never touches the `vscode` runtime and is tested in plain Node.
 */
import type { ChatMessage, ToolCall } from '../../api/types';
import { bytesToBase64, utf8Text } from '../../api/base64';

export type LmRole = 'user' | 'assistant' | 'system';

export type LmPart =
  | { kind: 'text'; value: string }
  /** `LanguageModelDataPart`: an image, or text/JSON carried as bytes. */
  | { kind: 'data'; mimeType: string; data: Uint8Array }
  | { kind: 'toolCall'; callId: string; name: string; input: unknown }
  | { kind: 'toolResult'; callId: string; content: LmPart[] }
  /** Anything else (thinking parts of earlier replies, unknown future parts): not sent. */
  | { kind: 'other' };

export interface LmMessage {
  role: LmRole;
  name?: string;
  parts: LmPart[];
}

type ContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export function isImageMime(mimeType: string): boolean {
  return /^image\/[a-z0-9.+-]+$/i.test(mimeType.trim());
}

function isTextMime(mimeType: string): boolean {
  return /^text\/|^application\/(?:[a-z0-9.+-]*\+)?json\b/i.test(mimeType.trim());
}

export function dataUrl(mimeType: string, data: Uint8Array): string {
  return `data:${mimeType.trim().toLowerCase()};base64,${bytesToBase64(data)}`;
}

function decodeText(data: Uint8Array): string {
  return utf8Text(data);
}

/** Text, images and decodable data of a list of parts; tool parts are handled by the caller. */
function contentParts(parts: LmPart[]): ContentPart[] {
  const out: ContentPart[] = [];
  for (const part of parts) {
    if (part.kind === 'text') {
      if (part.value) out.push({ type: 'text', text: part.value });
    } else if (part.kind === 'data') {
      if (isImageMime(part.mimeType))
        out.push({ type: 'image_url', image_url: { url: dataUrl(part.mimeType, part.data) } });
      else if (isTextMime(part.mimeType)) out.push({ type: 'text', text: decodeText(part.data) });
      // Other binary data (e.g. cache-control markers some callers attach) has no OpenAI form.
    }
  }
  return mergeAdjacentText(out);
}

function mergeAdjacentText(parts: ContentPart[]): ContentPart[] {
  const out: ContentPart[] = [];
  for (const part of parts) {
    const last = out[out.length - 1];
    if (part.type === 'text' && last?.type === 'text') last.text += part.text;
    else out.push(part.type === 'text' ? { ...part } : part);
  }
  return out;
}

/** A string when there is only text (what every gateway accepts), parts when there are images. */
function toContent(parts: ContentPart[]): string | ContentPart[] {
  if (parts.every((p) => p.type === 'text')) return parts.map((p) => (p as { text: string }).text).join('');
  return parts;
}

function toolArguments(input: unknown): string {
  if (input === undefined || input === null) return '{}';
  try {
    return JSON.stringify(input) ?? '{}';
  } catch {
    return '{}';
  }
}

/** A tool result's content as the text of a `role: "tool"` message, plus any images it held. */
function toolResultContent(content: LmPart[]): { text: string; images: ContentPart[] } {
  const parts = contentParts(content);
  const text = parts
    .filter((p): p is { type: 'text'; text: string } => p.type === 'text')
    .map((p) => p.text)
    .join('');
  return { text, images: parts.filter((p) => p.type === 'image_url') };
}

/**
 * Maps the conversation. A user message's tool results become `role: "tool"` messages placed
 * first (they answer the assistant's `tool_calls` just before); images inside tool results, which a
 * tool message cannot carry, follow in a user message. An assistant message's tool calls become
 * its `tool_calls`.
 */
export function toOpenAiMessages(messages: readonly LmMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const message of messages) {
    const name = message.name?.trim() ? { name: message.name.trim() } : {};
    if (message.role === 'assistant') {
      const text = contentParts(message.parts)
        .filter((p): p is { type: 'text'; text: string } => p.type === 'text')
        .map((p) => p.text)
        .join('');
      const toolCalls: ToolCall[] = message.parts.flatMap((part) =>
        part.kind === 'toolCall'
          ? [
              {
                id: part.callId,
                type: 'function',
                function: { name: part.name, arguments: toolArguments(part.input) },
              },
            ]
          : [],
      );
      if (!text && toolCalls.length === 0) continue;
      const mapped: ChatMessage = { role: 'assistant', content: text || null, ...name };
      if (toolCalls.length > 0) mapped.tool_calls = toolCalls;
      out.push(mapped);
      continue;
    }
    const resultImages: ContentPart[] = [];
    for (const part of message.parts) {
      if (part.kind !== 'toolResult') continue;
      const { text, images } = toolResultContent(part.content);
      out.push({ role: 'tool', tool_call_id: part.callId, content: text });
      resultImages.push(...images);
    }
    const parts = [...resultImages, ...contentParts(message.parts)];
    if (parts.length === 0) continue;
    out.push({ role: message.role, content: toContent(parts), ...name });
  }
  return out;
}
