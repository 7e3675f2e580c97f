/**
 * Pictures a chat model draws: `message.images` of a whole reply, `delta.images` of a streamed
 * one (OpenRouter: `[{type: "image_url", image_url: {url: "data:image/png;base64,…"}}]`). Read
 * here, once, for both. Only inline pictures are taken, as a data URL of a raster image type
 * with a base64 payload under MAX_CHAT_IMAGE_CHARS; a link, another type or a malformed entry is
 * left out and reported. A reply brings at most MAX_CHAT_IMAGES.
 */
import { isRecord } from './json';
import { silentProblems } from './problems';
import type { ProblemReporter } from './problems';
import type { ChatImage } from './types';

export type { ChatImage };

/** The most pictures one reply brings; the rest are left out. */
export const MAX_CHAT_IMAGES = 8;
/** The longest base64 payload of one picture (about 24 MB of image). */
export const MAX_CHAT_IMAGE_CHARS = 32_000_000;

const DATA_URL = /^data:(image\/(?:png|jpeg|webp|gif));base64,/i;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** One entry → a picture, or undefined (and a report) when it is none we take. */
function chatImage(entry: unknown, problems: ProblemReporter): ChatImage | undefined {
  // Own fields only: an inherited `image_url` is no part of what the gateway sent.
  const own = (value: unknown, key: string): unknown =>
    isRecord(value) && Object.hasOwn(value, key) ? value[key] : undefined;
  const imageUrl = own(entry, 'image_url');
  const url = typeof imageUrl === 'string' ? imageUrl : own(imageUrl, 'url');
  if (typeof url !== 'string') {
    problems.wrongType('chat.images[]', 'an object with image_url.url', entry);
    return undefined;
  }
  const header = DATA_URL.exec(url.slice(0, 40));
  if (!header) {
    problems.unknown('chat.images[]', 'a picture that is no inline png, jpeg, webp or gif; left out');
    return undefined;
  }
  const data = url.slice(header[0].length);
  if (data.length > MAX_CHAT_IMAGE_CHARS || !BASE64.test(data)) {
    problems.unknown('chat.images[]', 'a picture too large or not base64; left out');
    return undefined;
  }
  return { mimeType: header[1].toLowerCase(), data };
}

/**
 * The pictures in `value` (the `images` field), at most `room` of them (what is left of
 * MAX_CHAT_IMAGES for this reply). Never throws.
 */
export function parseChatImages(
  value: unknown,
  room: number = MAX_CHAT_IMAGES,
  problems: ProblemReporter = silentProblems,
): ChatImage[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.wrongType('chat.images', 'an array', value);
    return [];
  }
  const images: ChatImage[] = [];
  for (const entry of value.slice(0, MAX_CHAT_IMAGES * 4)) {
    if (images.length >= room) {
      problems.unknown(
        'chat.images',
        `more than ${MAX_CHAT_IMAGES} pictures in one reply; the rest left out`,
      );
      break;
    }
    const image = chatImage(entry, problems);
    if (image) images.push(image);
  }
  return images;
}
