/**
 * The media slash commands typed into a prompt: `/image a red square --size 1024x1024`.
 * Pure parsing, no settings: the caller merges the result over its defaults.
 *
 * Grammar: a command word (`/image`, `/video`, `/audio`, `/media`), then words of the prompt and
 * flags in any order. A flag is `--name value`, `--name=value` or a bare `--name` (true). A value
 * may be quoted ("two words"). `--model <id>` picks the model; every other flag is a
 * parameter for the gateway. Numbers and `true`/`false` become JSON numbers and booleans; a
 * quoted value always stays a string. A lone `--` ends the flags: what follows is prompt.
 */

import { isModelId } from '../config/modelId';

export const MEDIA_COMMAND_KINDS = ['image', 'video', 'audio', 'media'] as const;
export type MediaCommandKind = (typeof MEDIA_COMMAND_KINDS)[number];

export interface MediaCommand {
  kind: MediaCommandKind;
  prompt: string;
  model?: string;
  parameters: Record<string, string | number | boolean>;
}

export type MediaCommandResult = { ok: true; command: MediaCommand } | { ok: false; error: string };

const FLAG_NAME = /^[A-Za-z][\w.-]{0,63}$/;
/** Names that would clash with the request's own fields or with object internals. */
const RESERVED = new Set(['prompt', '__proto__', 'constructor', 'prototype']);

/** The command word of `text`, if it starts with one (`/image` and `/image …`, not `/images`). */
export function mediaCommandKind(text: string): MediaCommandKind | undefined {
  const match = /^\s*\/(image|video|audio|media)(?=\s|$)/.exec(text);
  return match ? (match[1] as MediaCommandKind) : undefined;
}

interface Token {
  text: string;
  quoted: boolean;
}

function tokenize(text: string): Token[] | string {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    while (i < text.length && /\s/.test(text[i])) i++;
    if (i >= text.length) break;
    let value = '';
    let quoted = false;
    while (i < text.length && !/\s/.test(text[i])) {
      const quote = text[i];
      if (quote === '"' || quote === "'") {
        const end = text.indexOf(quote, i + 1);
        if (end < 0) return `A ${quote} quote is not closed.`;
        value += text.slice(i + 1, end);
        quoted = true;
        i = end + 1;
      } else {
        value += quote;
        i++;
      }
    }
    tokens.push({ text: value, quoted });
  }
  return tokens;
}

function typed(token: Token): string | number | boolean {
  if (token.quoted) return token.text;
  if (token.text === 'true') return true;
  if (token.text === 'false') return false;
  if (/^-?(?:0|[1-9]\d{0,14})(?:\.\d+)?$/.test(token.text)) return Number(token.text);
  return token.text;
}

function isFlag(token: Token | undefined): boolean {
  return !!token && !token.quoted && token.text.startsWith('--');
}

/** Parses a media command; `undefined` when the text is not one. Never throws. */
export function parseMediaCommand(text: string): MediaCommandResult | undefined {
  const kind = mediaCommandKind(text);
  if (!kind) return undefined;
  const rest = text.replace(/^\s*\/\w+/, '');
  const tokens = tokenize(rest);
  if (typeof tokens === 'string') return { ok: false, error: tokens };

  const words: string[] = [];
  const parameters: Record<string, string | number | boolean> = {};
  let model: string | undefined;
  let flagsEnded = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (flagsEnded || !isFlag(token)) {
      words.push(token.text);
      continue;
    }
    if (token.text === '--') {
      flagsEnded = true;
      continue;
    }
    const body = token.text.slice(2);
    const eq = body.indexOf('=');
    const name = eq >= 0 ? body.slice(0, eq) : body;
    if (!FLAG_NAME.test(name)) return { ok: false, error: `"--${name}" is not a valid option name.` };
    if (RESERVED.has(name)) return { ok: false, error: `"--${name}" cannot be set as an option.` };
    let value: string | number | boolean;
    if (eq >= 0) value = typed({ text: body.slice(eq + 1), quoted: token.quoted });
    else if (i + 1 < tokens.length && !isFlag(tokens[i + 1])) value = typed(tokens[++i]);
    else value = true;
    if (name === 'model') {
      if (typeof value !== 'string' || !isModelId(value))
        return { ok: false, error: `--model needs a model id, such as gpt-image-1 or openai/gpt-image-1.` };
      model = value;
    } else {
      parameters[name] = value;
    }
  }
  const prompt = words.join(' ').trim();
  if (!prompt) return { ok: false, error: `/${kind} needs a prompt, for example: /${kind} a red square` };
  return { ok: true, command: { kind, prompt, ...(model ? { model } : {}), parameters } };
}

/**
 * Whether a model makes the kind of media a command asks for, from what its catalog entry says
 * (`outputModalities`, e.g. `["image"]`). `/media` takes any model; without an entry, any
 * command is allowed, as the gateway will say if the model cannot do it.
 */
export function modelMakes(kind: MediaCommandKind, outputModalities: readonly string[] | undefined): boolean {
  if (kind === 'media' || !outputModalities) return true;
  return outputModalities.includes(kind);
}
