/** What the echo model says about the images in the last user message: count, MIME type, bytes. */
import { isRecord } from './respond';

export interface ReceivedImage {
  mimeType: string;
  bytes: number;
}

const DATA_URL = /^data:([a-z]+\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/=]*)$/i;

export function imagesInLastUserMessage(messages: unknown[]): ReceivedImage[] {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (!isRecord(message) || message.role !== 'user') continue;
    if (!Array.isArray(message.content)) return [];
    const images: ReceivedImage[] = [];
    for (const part of message.content) {
      if (!isRecord(part) || part.type !== 'image_url' || !isRecord(part.image_url)) continue;
      const url = part.image_url.url;
      const match = typeof url === 'string' ? DATA_URL.exec(url) : null;
      images.push(
        match
          ? { mimeType: match[1].toLowerCase(), bytes: Buffer.from(match[2], 'base64').length }
          : { mimeType: 'url', bytes: 0 },
      );
    }
    return images;
  }
  return [];
}

/** "Images received: 2 (image/png 1234 bytes, image/jpeg 5678 bytes)", or "" for none. */
export function describeImages(images: ReceivedImage[]): string {
  if (images.length === 0) return '';
  const list = images.map((i) => `${i.mimeType} ${i.bytes} bytes`).join(', ');
  return `Images received: ${images.length} (${list})`;
}
