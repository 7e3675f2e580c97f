import * as vscode from 'vscode';
import {
  binarySizeProblem,
  IMAGE_MIME_TYPES,
  IMAGE_TOKENS,
  MAX_TEXT_ATTACHMENT_BYTES,
  PDF_MIME_TYPE,
  estimatePdfTokens,
  formatBytes,
  imageMimeType,
  textAttachment,
} from '../../core/chat/attachments';
import type { Attachment } from '../../core/chat/attachments';
import { newId } from '../../core/chat/conversation';
import type { AttachmentChip } from '../../core/protocol/chatProtocol';
import { Disposable } from '../../core/util/lifecycle';
import { bytesToBase64 } from '../../api/base64';

/**
 * What goes with the next prompt: the chips above the composer. Images are written to extension
 * storage at once (the conversation keeps only their file name) and read back when sent.
 */
export class AttachmentTray extends Disposable {
  private items: Attachment[] = [];
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.changed.event;

  constructor(private readonly imageFolder: vscode.Uri) {
    super();
  }

  list(): readonly Attachment[] {
    return this.items;
  }

  chips(): AttachmentChip[] {
    return this.items.map(({ id, kind, name, bytes, tokens }) => ({ id, kind, name, bytes, tokens }));
  }

  add(...attachments: Attachment[]): void {
    if (attachments.length === 0) return;
    this.items = [...this.items, ...attachments];
    this.changed.fire();
  }

  remove(id: string): void {
    this.items = this.items.filter((a) => a.id !== id);
    this.changed.fire();
  }

  /** Hands the attachments to a prompt being sent and empties the tray. */
  take(): Attachment[] {
    const taken = this.items;
    this.items = [];
    if (taken.length) this.changed.fire();
    return taken;
  }

  /** Keeps an image's bytes in storage; throws an Error with a message for the user when refused. */
  async storeImage(name: string, mimeType: string, bytes: Uint8Array): Promise<Attachment> {
    if (!IMAGE_MIME_TYPES.includes(mimeType))
      throw new Error(`${name} is not a PNG, JPEG, WebP or GIF image.`);
    const tooLarge = binarySizeProblem('image', name, bytes.length);
    if (tooLarge) throw new Error(tooLarge);
    const { id, file } = await this.keep('img', mimeType.slice('image/'.length), bytes);
    return { id, kind: 'image', name, mimeType, file, bytes: bytes.length, tokens: IMAGE_TOKENS };
  }

  /** Keeps a PDF's bytes in storage, sent as a `file` part (the gateway parses it for models that cannot). */
  async storePdf(name: string, bytes: Uint8Array): Promise<Attachment> {
    const tooLarge = binarySizeProblem('pdf', name, bytes.length);
    if (tooLarge) throw new Error(tooLarge);
    if (!isPdf(bytes)) throw new Error(`${name} is not a PDF file.`);
    const { id, file } = await this.keep('pdf', 'pdf', bytes);
    return {
      id,
      kind: 'pdf',
      name,
      mimeType: PDF_MIME_TYPE,
      file,
      bytes: bytes.length,
      tokens: estimatePdfTokens(bytes.length),
    };
  }

  /** Writes an attachment's bytes to storage under a new id. */
  private async keep(
    prefix: string,
    extension: string,
    bytes: Uint8Array,
  ): Promise<{ id: string; file: string }> {
    const id = newId(prefix);
    const file = `${id}.${extension}`;
    await vscode.workspace.fs.createDirectory(this.imageFolder);
    await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(this.imageFolder, file), bytes);
    return { id, file };
  }

  /** Base64 of stored images and PDFs, by file name (missing files are left out). */
  async readImages(attachments: readonly Attachment[]): Promise<Map<string, string>> {
    const data = new Map<string, string>();
    for (const a of attachments) {
      if ((a.kind !== 'image' && a.kind !== 'pdf') || !a.file || data.has(a.file)) continue;
      try {
        const bytes = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(this.imageFolder, a.file));
        data.set(a.file, bytesToBase64(bytes));
      } catch {
        // A deleted image is not sent; the turn still shows its chip.
      }
    }
    return data;
  }
}

/** A PDF starts with `%PDF-` (a file named .pdf that is not one is refused, not sent). */
function isPdf(bytes: Uint8Array): boolean {
  return bytes.length >= 5 && String.fromCharCode(...bytes.subarray(0, 5)) === '%PDF-';
}

/** Whether a file is attached as a PDF (by its name). */
export function isPdfUri(uri: vscode.Uri): boolean {
  return /\.pdf$/i.test(uri.path);
}

/** The editor's selection, with file, language and line range; undefined when nothing is selected. */
export function selectionAttachment(editor: vscode.TextEditor): Attachment | undefined {
  const selection = editor.selection;
  const text = editor.document.getText(selection);
  if (!text.trim()) return undefined;
  const path = vscode.workspace.asRelativePath(editor.document.uri, false);
  const range = `${selection.start.line + 1}-${selection.end.line + 1}`;
  return textAttachment({
    id: newId('sel'),
    kind: 'selection',
    name: `${path.split('/').pop() ?? path}:${range}`,
    path: `${path}:${range}`,
    language: editor.document.languageId,
    text,
  });
}

/** A file as a text attachment; throws an Error with a message for the user when refused. */
export async function fileAttachment(uri: vscode.Uri): Promise<Attachment> {
  const path = vscode.workspace.asRelativePath(uri, false);
  const name = path.split('/').pop() ?? path;
  const stat = await vscode.workspace.fs.stat(uri);
  if (stat.type & vscode.FileType.Directory) throw new Error(`${name} is a folder; attach files one by one.`);
  if (stat.size > MAX_TEXT_ATTACHMENT_BYTES) {
    throw new Error(
      `${name} is ${formatBytes(stat.size)}; files up to ${formatBytes(MAX_TEXT_ATTACHMENT_BYTES)} can be attached. Attach a selection instead.`,
    );
  }
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  const text = open
    ? open.getText()
    : new TextDecoder('utf-8', { fatal: false }).decode(await vscode.workspace.fs.readFile(uri));
  if (text.includes('\u0000'))
    throw new Error(`${name} looks like a binary file; only text files can be attached.`);
  return textAttachment({ id: newId('file'), kind: 'file', name, path, language: open?.languageId, text });
}

/** The Problems of one file, or of the workspace; undefined when there are none. */
export function problemsAttachment(uri: vscode.Uri | undefined): Attachment | undefined {
  const entries: Array<[vscode.Uri, readonly vscode.Diagnostic[]]> = uri
    ? [[uri, vscode.languages.getDiagnostics(uri)]]
    : vscode.languages.getDiagnostics();
  const lines: string[] = [];
  for (const [file, diagnostics] of entries) {
    const path = vscode.workspace.asRelativePath(file, false);
    for (const d of diagnostics) {
      const severity = ['error', 'warning', 'info', 'hint'][d.severity] ?? 'problem';
      const source = d.source ? ` [${d.source}]` : '';
      lines.push(
        `${path}:${d.range.start.line + 1}:${d.range.start.character + 1} ${severity}${source}: ${d.message}`,
      );
    }
  }
  if (lines.length === 0) return undefined;
  const scope = uri ? vscode.workspace.asRelativePath(uri, false) : 'the workspace';
  return textAttachment({
    id: newId('prob'),
    kind: 'problems',
    name: `Problems in ${uri ? (scope.split('/').pop() ?? scope) : scope} (${lines.length})`,
    path: `Problems in ${scope}`,
    text: lines.join('\n'),
  });
}

export function imageTypeOf(uri: vscode.Uri): string | undefined {
  return imageMimeType(uri.path);
}
