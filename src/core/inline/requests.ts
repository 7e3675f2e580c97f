/**
 * The two ways to ask for the middle: fill-in-the-middle through `POST /v1/completions` (`prompt`
 * and `suffix`), for models that take it, or a chat request whose template asks for the missing
 * middle only. Both stream, with a small `max_tokens` and stop sequences.
 */
import type { ChatRequest, TextCompletionRequest } from '../../api/types';
import type { CursorContext } from './context';
import { unitAt } from './clean';

export type { InlineMode } from './modelChoice';

export type InlineRequest =
  { mode: 'fim'; body: TextCompletionRequest } | { mode: 'chat'; body: ChatRequest };

/** Tokens for the rest of a line, and for a block. */
export const MAX_TOKENS = { line: 64, block: 256 } as const;
const FIM_STOP = ['\n\n\n', '<|endoftext|>', '<|file_sep|>', '<|fim_pad|>'];
const CHAT_STOP = ['\n\n\n'];

/** How the gateway is told which file the text is from: a comment in the file's own syntax. */
const LINE_COMMENT: Record<string, string> = {
  python: '#',
  shellscript: '#',
  ruby: '#',
  perl: '#',
  r: '#',
  yaml: '#',
  toml: '#',
  dockerfile: '#',
  makefile: '#',
  powershell: '#',
  elixir: '#',
  sql: '--',
  lua: '--',
  haskell: '--',
  plaintext: '',
  markdown: '',
};

function pathComment(context: CursorContext): string {
  if (!context.path) return '';
  // An own property only: `constructor` or `toString` as a language id is not a comment marker.
  const marker = Object.hasOwn(LINE_COMMENT, context.languageId) ? LINE_COMMENT[context.languageId] : '//';
  return marker ? `${marker} Path: ${context.path}\n` : '';
}

export function fimRequest(model: string, context: CursorContext): InlineRequest {
  const unit = unitAt(context.prefix);
  // The path goes first only when the window starts at the file's start (else it reads as code).
  const header = context.prefixComplete ? pathComment(context) : '';
  return {
    mode: 'fim',
    body: {
      model,
      prompt: header + context.prefix,
      suffix: context.suffix,
      max_tokens: MAX_TOKENS[unit.kind],
      temperature: 0.1,
      stop: FIM_STOP,
    },
  };
}

export const CURSOR_MARKER = '<CURSOR>';

const SYSTEM_PROMPT = [
  'You are a code completion engine. You get a file with the marker <CURSOR> where the user is typing.',
  'Reply with only the text to insert at <CURSOR>: no explanation, no Markdown, no code fences.',
  'Never repeat the text before or after <CURSOR>. Keep the indentation of the file.',
  'If nothing should be inserted, reply with nothing.',
].join(' ');

export function chatRequest(model: string, context: CursorContext): InlineRequest {
  const unit = unitAt(context.prefix);
  const scope =
    unit.kind === 'block' ? 'Complete the block the previous line opens.' : 'Complete the current line only.';
  const where = context.path
    ? `File: ${context.path} (${context.languageId})`
    : `Language: ${context.languageId}`;
  return {
    mode: 'chat',
    body: {
      model,
      messages: [
        { role: 'system', content: SYSTEM_PROMPT },
        {
          role: 'user',
          content: `${where}\n${scope}\n\n${context.prefix}${CURSOR_MARKER}${context.suffix}`,
        },
      ],
      max_tokens: MAX_TOKENS[unit.kind],
      temperature: 0.1,
      stop: CHAT_STOP,
    },
  };
}
