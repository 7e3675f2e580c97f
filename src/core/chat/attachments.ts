/**
 * What a prompt carries besides its text: code, files, problems and images. Pure: how each is
 * sized, estimated in tokens and turned into OpenAI-style content parts.
 */
import type { ChatMessage } from '../../api/types';

export type AttachmentKind = 'selection' | 'file' | 'problems' | 'image' | 'pdf';

/** What the chip and the sent turn show; text attachments also keep their text (history resends it). */
export interface Attachment {
  id: string;
  kind: AttachmentKind;
  /** e.g. `src/app.ts:3-10`, `Problems in src/app.ts`, `screenshot.png`. */
  name: string;
  /** Workspace-relative path, when it has one. */
  path?: string;
  language?: string;
  /** Text attachments: the text sent. */
  text?: string;
  /** Images and PDFs: MIME type, and the file in extension storage that holds the bytes. */
  mimeType?: string;
  file?: string;
  bytes: number;
  tokens: number;
}

export const MAX_TEXT_ATTACHMENT_BYTES = 512 * 1024;
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
/** Longest side an image is scaled to before it is sent. */
export const MAX_IMAGE_SIDE = 2048;
export const IMAGE_MIME_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];
export const PDF_MIME_TYPE = 'application/pdf';
export const MAX_PDF_BYTES = 20 * 1024 * 1024;

/** Why an image or PDF of `size` bytes cannot be attached, or undefined when it can. */
export function binarySizeProblem(kind: 'image' | 'pdf', name: string, size: number): string | undefined {
  const max = kind === 'image' ? MAX_IMAGE_BYTES : MAX_PDF_BYTES;
  if (size <= max) return undefined;
  return `${name} is ${formatBytes(size)}; ${kind === 'image' ? 'images' : 'PDFs'} up to ${formatBytes(max)} can be attached.`;
}

/** A coarse guess for a PDF, whose text is unknown until the gateway parses it: about 1 token per 20 bytes. */
export function estimatePdfTokens(bytes: number): number {
  return Math.ceil(bytes / 20);
}

/** About four characters per token: a coarse estimate, good enough for a meter and a warning. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** A fixed estimate per image (a 1024×1024 tile set at high detail is about 765 tokens). */
export const IMAGE_TOKENS = 765;

export function imageMimeType(fileName: string): string | undefined {
  const ext = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase();
  switch (ext) {
    case 'png':
      return 'image/png';
    case 'jpg':
    case 'jpeg':
      return 'image/jpeg';
    case 'webp':
      return 'image/webp';
    case 'gif':
      return 'image/gif';
    default:
      return undefined;
  }
}

/** `text` in a code fence longer than any run of backticks inside it, so the text cannot close it. */
export function fenced(text: string, info = ''): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`{3,}/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${info}\n${text}\n${fence}`;
}

/** A text attachment as it is sent: headed by its path, in a fence longer than any inside it. */
export function fencedBlock(attachment: Attachment): string {
  const heading = attachment.path ?? attachment.name;
  return `${heading}\n${fenced(attachment.text ?? '', attachment.language ?? '')}`;
}

export function textAttachment(
  init: Omit<Attachment, 'bytes' | 'tokens' | 'text'> & { text: string },
): Attachment {
  const bytes = new TextEncoder().encode(init.text).length;
  const attachment: Attachment = { ...init, bytes, tokens: 0 };
  attachment.tokens = estimateTokens(fencedBlock(attachment));
  return attachment;
}

/** "12 KB", "840 B", "1.2 MB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * The user message with its attachments: text parts (the prompt, then each fenced attachment), an
 * `image_url` part per image and a `file` part per PDF, as data URLs. `imageData` gives a stored
 * file's base64 bytes.
 */
export function userMessageWithAttachments(
  prompt: string,
  attachments: readonly Attachment[],
  imageData: (attachment: Attachment) => string | undefined,
): ChatMessage {
  if (attachments.length === 0) return { role: 'user', content: prompt };
  const parts: unknown[] = [{ type: 'text', text: prompt }];
  for (const attachment of attachments) {
    if (attachment.kind === 'image') {
      const data = imageData(attachment);
      if (data && attachment.mimeType)
        parts.push({ type: 'image_url', image_url: { url: `data:${attachment.mimeType};base64,${data}` } });
    } else if (attachment.kind === 'pdf') {
      const data = imageData(attachment);
      if (data)
        parts.push({
          type: 'file',
          file: { filename: attachment.name, file_data: `data:${PDF_MIME_TYPE};base64,${data}` },
        });
    } else {
      parts.push({ type: 'text', text: fencedBlock(attachment) });
    }
  }
  return { role: 'user', content: parts };
}

/** A size or a token count read from outside: a finite number, not negative. */
function isAmount(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/**
 * Parses attachments kept in a stored turn (outside data): the one parser the conversation
 * store reads them through. Malformed entries are dropped; an image's stored file must be a
 * bare file name (never a path) and its type one we send.
 */
export function parseAttachments(value: unknown): Attachment[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: Attachment[] = [];
  for (const a of value as unknown[]) {
    if (!a || typeof a !== 'object' || Array.isArray(a)) continue;
    const r = a as Record<string, unknown>;
    const kind = r.kind;
    if (kind !== 'selection' && kind !== 'file' && kind !== 'problems' && kind !== 'image' && kind !== 'pdf')
      continue;
    if (typeof r.id !== 'string' || !r.id || typeof r.name !== 'string') continue;
    if (!isAmount(r.bytes) || !isAmount(r.tokens)) continue;
    const opt = (k: string): string | undefined => (typeof r[k] === 'string' ? r[k] : undefined);
    const mimeType = opt('mimeType');
    const file = opt('file');
    // Built in the order of the type, so a stored turn reads back as it was written.
    const attachment: Attachment = {
      id: r.id,
      kind,
      name: r.name,
      path: opt('path'),
      language: opt('language'),
      text: opt('text'),
      mimeType:
        mimeType !== undefined && (IMAGE_MIME_TYPES.includes(mimeType) || mimeType === PDF_MIME_TYPE)
          ? mimeType
          : undefined,
      file: file !== undefined && /^[A-Za-z0-9_.-]+$/.test(file) && !/^\.+$/.test(file) ? file : undefined,
      bytes: r.bytes,
      tokens: r.tokens,
    };
    for (const key of ['path', 'language', 'text', 'mimeType', 'file'] as const)
      if (attachment[key] === undefined) delete attachment[key];
    out.push(attachment);
  }
  return out;
}

/** What the estimate and the request need of a turn. */
interface SentTurn {
  role: string;
  content: string;
  attachments?: readonly Attachment[];
  /** Left out of what is sent (to fit the model's context): counted as nothing. */
  leftOut?: boolean;
}

/** Tokens one turn adds to a request (a coarse estimate from its text and attachments). */
export function estimateTurn(turn: SentTurn): number {
  if (turn.leftOut) return 0;
  let tokens = estimateTokens(turn.content) + 4;
  for (const a of turn.attachments ?? []) tokens += a.tokens;
  return tokens;
}

/** Tokens of the conversation so far (a coarse estimate from its text) plus pending attachments. */
export function estimateContext(
  turns: readonly SentTurn[],
  systemPrompt: string,
  pending: readonly Attachment[],
): number {
  let tokens = estimateTokens(systemPrompt);
  for (const turn of turns) tokens += estimateTurn(turn);
  for (const a of pending) tokens += a.tokens;
  return tokens;
}

/**
 * The ids of the oldest turns to leave out of requests so that the conversation, the pending
 * attachments and a prompt of `promptTokens` fit in `contextLength`: whole exchanges (a prompt
 * and its replies), oldest first, just enough of them. Turns already left out stay so. The
 * prompt itself and the pending attachments are never among them; when even leaving out every
 * turn is not enough, every turn is named and the caller says what is still too large.
 */
export function turnsToLeaveOut(
  turns: ReadonlyArray<SentTurn & { id: string }>,
  systemPrompt: string,
  pending: readonly Attachment[],
  promptTokens: number,
  contextLength: number,
): string[] {
  let used = estimateContext(turns, systemPrompt, pending) + promptTokens;
  const ids: string[] = [];
  let i = 0;
  while (used > contextLength && i < turns.length) {
    // One exchange: this turn and the replies up to the next prompt.
    let end = i + 1;
    while (end < turns.length && turns[end].role !== 'user') end++;
    for (const turn of turns.slice(i, end)) {
      if (turn.leftOut) continue;
      used -= estimateTurn(turn);
      ids.push(turn.id);
    }
    i = end;
  }
  return ids;
}

/**
 * Puts each user turn's attachments into its message: `messages` is `toApiMessages(turns, …)`,
 * which writes one message per user turn that is not left out, in order.
 */
export function attachToMessages(
  messages: ChatMessage[],
  turns: readonly SentTurn[],
  imageData: (attachment: Attachment) => string | undefined,
): ChatMessage[] {
  const userTurns = turns.filter((t) => t.role === 'user' && !t.leftOut);
  let k = 0;
  return messages.map((message) => {
    if (message.role !== 'user') return message;
    const turn = userTurns[k++];
    return turn?.attachments?.length
      ? userMessageWithAttachments(turn.content, turn.attachments, imageData)
      : message;
  });
}
