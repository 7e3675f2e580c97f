/**
 * Messages between the media gallery webview and the host. The page names results only by job
 * id; the host looks each up itself. Every message from the page is parsed here first, and so is
 * every message the page receives (its items hold the gateway's text).
 */
import { isRecord } from '../../api/json';
import { isCardSource } from './mediaCardProtocol';

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
  /** A video's cached first frame (a local file as the webview's URL); `src` is the video. */
  poster?: string;
  /** True when `src` is the full image (or the video) and no thumbnail is cached yet. */
  needsThumbnail?: boolean;
  /** The beginning of a text result, shown as text where a picture would be. */
  excerpt?: string;
  saved: boolean;
  error?: string;
  /** What the job cost, in the gateway's credits, when the gateway reported it. */
  cost?: number;
  /** How far a running job is, 0 to 1, when the gateway says. */
  progress?: number;
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

/** Characters of a text result's beginning that a gallery card shows. */
export const MAX_EXCERPT = 400;

const KINDS: ReadonlySet<unknown> = new Set<GalleryItem['kind']>([
  'image',
  'video',
  'audio',
  'text',
  'file',
  'none',
]);

function text(value: unknown, max = 20_000): string {
  return typeof value === 'string' ? value.slice(0, max) : '';
}

/** One item as the page shows it, or undefined without a usable id; odd fields get safe values. */
function parseGalleryItem(value: unknown): GalleryItem | undefined {
  if (!isRecord(value) || typeof value.id !== 'string' || !value.id || value.id.length > 500)
    return undefined;
  const item: GalleryItem = {
    id: value.id,
    prompt: text(value.prompt),
    model: text(value.model, 500),
    status: text(value.status, 100),
    parameters: text(value.parameters),
    createdAt: typeof value.createdAt === 'number' && Number.isFinite(value.createdAt) ? value.createdAt : 0,
    kind: KINDS.has(value.kind) ? (value.kind as GalleryItem['kind']) : 'none',
    saved: value.saved === true,
  };
  // Only a URL the host made for this webview (the same rule as media cards' results).
  if (isCardSource(value.src)) item.src = value.src;
  if (isCardSource(value.poster)) item.poster = value.poster;
  if (value.needsThumbnail === true && item.src) item.needsThumbnail = true;
  if (typeof value.excerpt === 'string' && value.excerpt) item.excerpt = text(value.excerpt, MAX_EXCERPT);
  if (typeof value.error === 'string') item.error = text(value.error, 2_000);
  if (typeof value.cost === 'number' && Number.isFinite(value.cost) && value.cost >= 0)
    item.cost = value.cost;
  if (typeof value.progress === 'number' && value.progress >= 0 && value.progress <= 1)
    item.progress = value.progress;
  return item;
}

/** A message to the page, parsed by type; items that cannot be shown are left out. */
export function parseGalleryHostMessage(value: unknown): GalleryHostMessage | undefined {
  if (!isRecord(value) || value.type !== 'items' || !Array.isArray(value.items)) return undefined;
  const items: GalleryItem[] = [];
  for (const raw of value.items as unknown[]) {
    const item = parseGalleryItem(raw);
    if (item) items.push(item);
  }
  return { type: 'items', items };
}

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
