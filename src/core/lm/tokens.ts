/**
 * A token estimate without a network call, for `provideTokenCount`: VS Code uses it to fit a
 * prompt into `maxInputTokens`, so it errs on the high side. Pure.
 */
import type { LmMessage, LmPart } from './messages';
import { isImageMime } from './messages';

/** Tokens an image costs at most for common models (OpenAI's high-detail 1024² tile set). */
export const IMAGE_TOKENS = 765;
/** Per message: role and separators. */
const MESSAGE_OVERHEAD = 4;

/**
 * About 4 characters per token for English and code; characters outside ASCII (CJK, emoji) are
 * counted as one token each, which is closer for them.
 */
export function estimateTextTokens(text: string): number {
  if (!text) return 0;
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 128) ascii++;
    // The low half of a surrogate pair belongs to the character already counted.
    else if (code < 0xdc00 || code > 0xdfff) other++;
  }
  return Math.ceil(ascii / 4) + other;
}

function partTokens(part: LmPart): number {
  switch (part.kind) {
    case 'text':
      return estimateTextTokens(part.value);
    case 'data':
      return isImageMime(part.mimeType) ? IMAGE_TOKENS : Math.ceil(part.data.byteLength / 4);
    case 'toolCall': {
      let args = '';
      try {
        args = JSON.stringify(part.input) ?? '';
      } catch {
        args = '';
      }
      return estimateTextTokens(part.name) + estimateTextTokens(args) + MESSAGE_OVERHEAD;
    }
    case 'toolResult':
      return part.content.reduce((sum, inner) => sum + partTokens(inner), MESSAGE_OVERHEAD);
    default:
      return 0;
  }
}

export function estimateMessageTokens(message: LmMessage): number {
  return message.parts.reduce((sum, part) => sum + partTokens(part), MESSAGE_OVERHEAD);
}
