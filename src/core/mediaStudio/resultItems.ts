/**
 * A completed job's outputs as what the views show and save: local files (a remote result is
 * downloaded once, inline data written once) or text. The files are the host's (`F` is its URI
 * type); this decides what each result is, where it is kept and what text it shows, so the card,
 * the preview and saving agree.
 */
import { MAX_MEDIA_OUTPUTS, mimeFromUrl } from '../../api/media';
import type { DownloadedFile, MediaOutput } from '../../api/types';
import { formatBytes } from './storageBudget';

export type ResultItemKind = 'image' | 'video' | 'audio' | 'text' | 'file';

/** What the views show for one output. */
export interface ResultItem<F> {
  kind: ResultItemKind;
  /** A local file (in the extension's storage) for everything but inline text. */
  file?: F;
  /**
   * Text to show: the whole text of an inline text result, or for a text file its beginning
   * (see `textPreview`). Saving copies the file when there is one.
   */
  text?: string;
  mimeType?: string;
  /** Where it came from, when remote. */
  sourceUrl?: string;
  problem?: string;
}

/** How a result is shown, from its MIME type (or, failing that, its URL's file extension). */
export function kindOf(mimeType: string | undefined, url = ''): ResultItemKind {
  const type = (mimeType ?? (url ? mimeFromUrl(url) : undefined))?.split(';')[0].trim().toLowerCase() ?? '';
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('video/')) return 'video';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('text/')) return 'text';
  return 'file';
}

/** The outputs worth showing, in order, at most `MAX_MEDIA_OUTPUTS` (jobs stored before the cap). */
export function describeOutputs(
  outputs: readonly MediaOutput[],
): Array<{ output: MediaOutput; kind: ResultItemKind }> {
  return outputs.slice(0, MAX_MEDIA_OUTPUTS).map((output) => ({
    output,
    kind: output.kind === 'text' ? 'text' : kindOf(output.mimeType, output.kind === 'url' ? output.url : ''),
  }));
}

/** Characters of a text result a card or preview shows; the rest is there when it is opened or saved. */
export const MAX_TEXT_SHOWN = 20_000;
/** Bytes read of a text file to show its beginning (UTF-8 takes at most 4 bytes a character). */
export const TEXT_READ_BYTES = MAX_TEXT_SHOWN * 4;

/**
 * The text to show of a text result: at most `MAX_TEXT_SHOWN` characters, and where it stops short
 * of the whole, a line that says so. `wholeBytes` is given when `text` is only the beginning of a
 * file of that size.
 */
export function shownText(text: string, wholeBytes?: number): string {
  if (text.length <= MAX_TEXT_SHOWN && wholeBytes === undefined) return text;
  const size = wholeBytes !== undefined ? ` (${formatBytes(wholeBytes)} in all)` : '';
  return `${text.slice(0, MAX_TEXT_SHOWN)}\n\n… The text goes on${size}; open or save the result to read all of it.`;
}

/** The beginning of a text file, decoded as UTF-8 (a character cut at the end is dropped). */
export function textPreview(bytes: Uint8Array, totalBytes: number): string {
  const partial = bytes.length < totalBytes;
  return shownText(
    new TextDecoder('utf-8').decode(bytes, { stream: partial }),
    partial ? totalBytes : undefined,
  );
}

/** The host's side: where results are kept, how they are fetched and read. */
export interface ResultFiles<F> {
  /** Where result `index` of the job is kept, for its type. */
  fileFor(index: number, mimeType: string | undefined): F;
  /** The name an earlier version used, if there is one. */
  legacyFileFor(index: number, mimeType: string | undefined): F | undefined;
  exists(file: F): Promise<boolean>;
  /** A `file:` URL of an output that is kept locally already. */
  fromFileUrl(url: string): F;
  write(file: F, bytes: Uint8Array): Promise<void>;
  /** Writes inline (base64) data as result `index`; returns its file. */
  writeData(index: number, output: { data: string; mimeType: string }): Promise<F>;
  /** The client's download (bounded in size, time, place and number at once). */
  download(url: string, signal: AbortSignal): Promise<DownloadedFile>;
  /** At most the first `maxBytes` of the file, and its whole size. */
  readStart(file: F, maxBytes: number): Promise<{ bytes: Uint8Array; size: number }>;
  /** The type a download revealed for result `index`, whose link named none: remember it. */
  learned?(index: number, mimeType: string): void;
}

/**
 * The outputs as items, in order. Downloads stop when `signal` aborts; a failed one becomes an
 * item with a `problem`. Text files carry the beginning of their text.
 */
export async function resultItems<F>(
  outputs: readonly MediaOutput[],
  files: ResultFiles<F>,
  signal: AbortSignal,
): Promise<Array<ResultItem<F>>> {
  const items = await Promise.all(
    describeOutputs(outputs).map(({ output, kind }, index) => toItem(output, kind, index, files, signal)),
  );
  return Promise.all(items.map((item) => withText(item, files)));
}

async function toItem<F>(
  output: MediaOutput,
  kind: ResultItemKind,
  index: number,
  files: ResultFiles<F>,
  signal: AbortSignal,
): Promise<ResultItem<F>> {
  switch (output.kind) {
    case 'text':
      return { kind: 'text', text: output.text };
    case 'data': {
      // Normally moved to a file when the job finished; this covers opening it before that.
      return { kind, file: await files.writeData(index, output), mimeType: output.mimeType };
    }
    case 'url': {
      if (output.url.startsWith('file:'))
        return { kind, file: files.fromFileUrl(output.url), mimeType: output.mimeType };
      const mimeType = output.mimeType ?? mimeFromUrl(output.url);
      // Downloaded before, under this name or the one earlier versions used.
      const legacy = files.legacyFileFor(index, mimeType);
      for (const file of [files.fileFor(index, mimeType), ...(legacy ? [legacy] : [])]) {
        if (await files.exists(file)) return { kind, file, mimeType: output.mimeType, sourceUrl: output.url };
      }
      try {
        const { bytes, contentType } = await files.download(output.url, signal);
        // A link that named no type is kept under the type the download gave, and remembered,
        // so it is found and shown the same way next time.
        const learned = mimeType === undefined && contentType ? contentType : undefined;
        const file = files.fileFor(index, mimeType ?? learned);
        await files.write(file, bytes);
        if (learned) files.learned?.(index, learned);
        return {
          kind: kind === 'file' ? kindOf(contentType) : kind,
          file,
          mimeType: contentType ?? output.mimeType,
          sourceUrl: output.url,
        };
      } catch (error) {
        return {
          kind: 'file',
          sourceUrl: output.url,
          problem: `The result could not be downloaded: ${(error as Error).message}`,
        };
      }
    }
  }
}

/** A text file's item with the beginning of its text; one that cannot be read says so. */
async function withText<F>(item: ResultItem<F>, files: ResultFiles<F>): Promise<ResultItem<F>> {
  if (item.kind !== 'text' || item.text !== undefined || item.file === undefined) return item;
  try {
    const { bytes, size } = await files.readStart(item.file, TEXT_READ_BYTES);
    return { ...item, text: textPreview(bytes, size) };
  } catch (error) {
    return { ...item, text: '', problem: `The text could not be read: ${(error as Error).message}` };
  }
}
