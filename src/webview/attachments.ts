/**
 * The attachment chips above the composer (name, size, estimated tokens, remove), and images
 * pasted or dropped into the chat: scaled down on a canvas, then posted to the host. Files
 * dropped from the Explorer or editor tabs arrive as `text/uri-list` and go to the host as URIs.
 */
import { formatBytes } from '../core/chat/attachments';
import type { AttachmentChip } from '../core/protocol/chatProtocol';
import { codicon, h, iconButton } from './dom';
import { postToHost } from './vscodeApi';

const MAX_SIDE = 2048;
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'];
export const KIND_ICONS: Record<AttachmentChip['kind'], string> = {
  selection: 'code',
  file: 'file',
  problems: 'warning',
  image: 'file-media',
  pdf: 'file-pdf',
};

export class AttachmentBar {
  readonly element = h('div', {
    className: 'attachment-bar',
    attrs: { role: 'list', 'aria-label': 'Attachments' },
  });
  private acceptsImages = true;

  constructor(dropTarget: HTMLElement) {
    const addButton = iconButton({ icon: 'attach', label: 'Add files to the chat' });
    addButton.classList.add('attach-button');
    addButton.addEventListener('click', () => postToHost({ type: 'attachFile' }));
    this.addButton = addButton;
    dropTarget.addEventListener('paste', (event) => this.onPaste(event));
    dropTarget.addEventListener('dragover', (event) => {
      if (!event.dataTransfer) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'copy';
      dropTarget.classList.add('is-drop-target');
    });
    dropTarget.addEventListener('dragleave', () => dropTarget.classList.remove('is-drop-target'));
    dropTarget.addEventListener('drop', (event) => {
      dropTarget.classList.remove('is-drop-target');
      this.onDrop(event);
    });
    this.render([]);
  }

  readonly addButton: HTMLButtonElement;

  setAcceptsImages(accepts: boolean): void {
    this.acceptsImages = accepts;
  }

  render(chips: readonly AttachmentChip[]): void {
    this.element.hidden = chips.length === 0;
    this.element.replaceChildren(
      ...chips.map((chip) => {
        const remove = iconButton({ icon: 'close', label: `Remove ${chip.name}` });
        remove.classList.add('chip-remove');
        remove.addEventListener('click', () => postToHost({ type: 'removeAttachment', id: chip.id }));
        return h(
          'span',
          {
            className: `attachment-chip kind-${chip.kind}`,
            attrs: {
              role: 'listitem',
              title: `${chip.name}: ${formatBytes(chip.bytes)}, about ${chip.tokens} tokens`,
            },
          },
          codicon(KIND_ICONS[chip.kind]),
          h('span', { className: 'chip-name', text: chip.name }),
          h('span', { className: 'chip-size', text: `${formatBytes(chip.bytes)} · ~${chip.tokens} tok` }),
          remove,
        );
      }),
    );
  }

  private onPaste(event: ClipboardEvent): void {
    const files = Array.from(event.clipboardData?.files ?? []).filter((f) => IMAGE_TYPES.includes(f.type));
    if (files.length === 0) return;
    event.preventDefault();
    for (const file of files) void this.sendImage(file);
  }

  private onDrop(event: DragEvent): void {
    const transfer = event.dataTransfer;
    if (!transfer) return;
    event.preventDefault();
    const images = Array.from(transfer.files).filter((f) => IMAGE_TYPES.includes(f.type));
    for (const file of images) void this.sendImage(file);
    if (images.length) return;
    const uriList = transfer.getData('text/uri-list') || transfer.getData('application/vnd.code.uri-list');
    const uris = parseUriList(uriList);
    if (uris.length) postToHost({ type: 'attachUris', uris });
  }

  private async sendImage(file: File): Promise<void> {
    if (!this.acceptsImages) {
      // The host says why (and where to change it).
      postToHost({ type: 'attachImage', name: file.name || 'image.png', mimeType: file.type, data: '' });
      return;
    }
    const { mimeType, data } = await scaleImage(file);
    postToHost({ type: 'attachImage', name: file.name || `pasted.${mimeType.slice(6)}`, mimeType, data });
  }
}

/** `text/uri-list`: one URI a line, `#` lines are comments; a JSON array (VS Code's own) is read too. */
export function parseUriList(text: string): string[] {
  const trimmed = text.trim();
  if (!trimmed) return [];
  if (trimmed.startsWith('[')) {
    try {
      const value: unknown = JSON.parse(trimmed);
      return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
    } catch {
      return [];
    }
  }
  return trimmed
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

/**
 * Large images are scaled so the longest side is at most 2048 px (GIFs are sent as they are, to
 * keep their frames); the result is base64.
 */
export async function scaleImage(file: Blob & { type: string }): Promise<{ mimeType: string; data: string }> {
  if (file.type !== 'image/gif') {
    const bitmap = await createImageBitmap(file).catch(() => undefined);
    if (bitmap && Math.max(bitmap.width, bitmap.height) > MAX_SIDE) {
      const scale = MAX_SIDE / Math.max(bitmap.width, bitmap.height);
      const canvas = document.createElement('canvas');
      canvas.width = Math.round(bitmap.width * scale);
      canvas.height = Math.round(bitmap.height * scale);
      canvas.getContext('2d')?.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
      const mimeType = file.type === 'image/png' ? 'image/png' : 'image/jpeg';
      const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, mimeType, 0.9));
      if (blob) return { mimeType, data: await toBase64(blob) };
    }
  }
  return { mimeType: file.type, data: await toBase64(file) };
}

async function toBase64(blob: Blob): Promise<string> {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
