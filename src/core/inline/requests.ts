/**
 * The two ways to ask for the middle: fill-in-the-middle through `POST /v1/completions` (`prompt`
 * and `suffix`), for models that take it, or a chat request whose template asks for the missing
 * middle only. Both stream, with a small `max_tokens` and stop sequences. Also: which model, and
 * which way, when the settings leave it open.
 */
import type { ChatRequest, TextCompletionRequest } from '../../api/types';
import type { CatalogModel } from '../catalog/catalogCodec';
import type { CursorContext } from './context';
import { unitAt } from './clean';

export type InlineMode = 'fim' | 'chat';
export type InlineModeSetting = 'auto' | InlineMode;

export type InlineRequest =
  { mode: 'fim'; body: TextCompletionRequest } | { mode: 'chat'; body: ChatRequest };

/** Families known to take `suffix` on `/v1/completions` (trained for fill-in-the-middle). */
const FIM_FAMILIES =
  /codestral|qwen[\d.]*-?coder|deepseek-coder|starcoder|codellama|codegemma|stable-code|granite[^/]*code/i;
/** Names of models made or tuned for code. */
const CODE_MODELS = /cod(?:e|er|estral|ing)\b|coder|codestral|devstral/i;
/** Names of small, fast general models, for a catalog without a code model. */
const FAST_MODELS = /mini|flash|haiku|small|nano|lite|instant|8b|7b/i;

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
  const marker = LINE_COMMENT[context.languageId] ?? '//';
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

/**
 * FIM when the setting says so; in `auto`, when the catalog lists `suffix` among the model's
 * parameters, or the model is of a known FIM family and the gateway is not OpenRouter (which
 * documents no `suffix` on `/completions`: the chat path is the default there).
 */
export function chooseMode(
  setting: InlineModeSetting,
  model: string,
  entry: CatalogModel | undefined,
  baseUrl: string,
): InlineMode {
  if (setting !== 'auto') return setting;
  if (entry?.supportedParameters.includes('suffix')) return 'fim';
  return FIM_FAMILIES.test(model) && !isOpenRouter(baseUrl) ? 'fim' : 'chat';
}

function isOpenRouter(baseUrl: string): boolean {
  try {
    return /(^|\.)openrouter\.ai$/i.test(new URL(baseUrl).hostname);
  } catch {
    return false;
  }
}

/**
 * The model for inline completions: the setting, else a fast code model from the catalog (code
 * models first, then small fast ones, each cheapest first; models that reason are slow, so last).
 */
export function chooseInlineModel(setting: string, catalog: readonly CatalogModel[]): string | undefined {
  if (setting.trim()) return setting.trim();
  const text = catalog.filter(
    (m) =>
      (m.outputModalities.length === 0 || m.outputModalities.includes('text')) &&
      (m.inputModalities.length === 0 || m.inputModalities.includes('text')),
  );
  const rank = (m: CatalogModel): number =>
    (CODE_MODELS.test(m.id) || CODE_MODELS.test(m.name) ? 0 : FAST_MODELS.test(m.id) ? 1 : 2) * 2 +
    (m.supportedParameters.includes('reasoning') ? 1 : 0);
  const price = (m: CatalogModel): number =>
    m.pricing ? m.pricing.prompt * 10 + m.pricing.completion : Number.POSITIVE_INFINITY;
  const best = [...text].sort((a, b) => rank(a) - rank(b) || price(a) - price(b))[0];
  return best?.id;
}
