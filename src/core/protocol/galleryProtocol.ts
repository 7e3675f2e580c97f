/**
 * Messages between the media gallery webview and the host. The page names results only by job
 * id; the host looks each up itself. Every message from the page is parsed here first.
 */
import { isRecord } from '../../api/json';

/** One result as the gallery shows it: text only, plus a webview URL the host made. */
export interface GalleryItem {
  id: string;
  prompt: string;
  model: string;
  status: string;
  /** `key: value` pairs, long values shortened. */
  parameters: string;
  createdAt: number;
  kind: 'image' | 'video' | 'audio' | 'text' | 'file' | 'none';
  /** A webview URL of the thumbnail (cached) or of the image itself. */
  src?: string;
  /** True when `src` is the full image and no thumbnail is cached yet. */
  needsThumbnail?: boolean;
  saved: boolean;
  error?: string;
  /** What the job cost, in the gateway's credits, when the gateway reported it. */
  cost?: number;
}

export type GalleryHostMessage = { type: 'items'; items: GalleryItem[] };

export type GalleryAction = 'open' | 'insert' | 'rerun' | 'variation' | 'save' | 'delete';

export type GalleryMessage =
  | { type: 'ready' }
  | { type: 'action'; action: GalleryAction; ids: string[] }
  | { type: 'thumbnail'; id: string; dataUrl: string };

const ACTIONS: readonly GalleryAction[] = ['open', 'insert', 'rerun', 'variation', 'save', 'delete'];
/** Thumbnails are small: a 192-pixel WebP or PNG is a few tens of KB. */
export const MAX_THUMBNAIL_CHARS = 400_000;
const THUMBNAIL = /^data:image\/(webp|png|jpeg);base64,[A-Za-z0-9+/]+={0,2}$/;

export function parseGalleryMessage(value: unknown): GalleryMessage | undefined {
  if (!isRecord(value)) return undefined;
  switch (value.type) {
    case 'ready':
      return { type: 'ready' };
    case 'action': {
      const { action, ids } = value;
      if (!ACTIONS.includes(action as GalleryAction) || !Array.isArray(ids) || ids.length === 0)
        return undefined;
      if (ids.length > 10_000 || !ids.every((id) => typeof id === 'string' && id.length <= 500))
        return undefined;
      return { type: 'action', action: action as GalleryAction, ids: ids as string[] };
    }
    case 'thumbnail': {
      const { id, dataUrl } = value;
      if (typeof id !== 'string' || id.length > 500 || typeof dataUrl !== 'string') return undefined;
      if (dataUrl.length > MAX_THUMBNAIL_CHARS || !THUMBNAIL.test(dataUrl)) return undefined;
      return { type: 'thumbnail', id, dataUrl };
    }
    default:
      return undefined;
  }
}

export interface GalleryFilter {
  text: string;
  model: string;
  status: string;
}

/** The items a filter keeps: text in the prompt, model or parameters; model and status exact. */
export function filterGallery(items: readonly GalleryItem[], filter: GalleryFilter): GalleryItem[] {
  const words = filter.text.toLowerCase().split(/\s+/).filter(Boolean);
  return items.filter(
    (item) =>
      (!filter.model || item.model === filter.model) &&
      (!filter.status || item.status === filter.status) &&
      words.every((word) => `${item.prompt}\n${item.model}\n${item.parameters}`.toLowerCase().includes(word)),
  );
}
