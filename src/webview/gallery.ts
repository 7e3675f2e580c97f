/**
 * The media gallery page: a grid of every result with filters and multi-select. It only shows
 * text the host sent (as text) and images from URLs the host made; actions go back as job ids.
 * Thumbnails the host has not cached yet are drawn here once, from the loaded image, and sent
 * back to be cached.
 */
import { filterGallery, parseGalleryHostMessage } from '../core/protocol/galleryProtocol';
import { encodeDraggedJobs } from '../core/protocol/mediaDrag';
import type { GalleryItem, GalleryMessage } from '../core/protocol/galleryProtocol';
import { UiId } from '../core/ids';
import { COST_NOT_REPORTED, formatCost, relativeTime } from '../core/util/text';
import { h } from './dom';

interface GalleryApi {
  postMessage(message: GalleryMessage): void;
}
declare function acquireVsCodeApi(): GalleryApi;

const api = acquireVsCodeApi();
const THUMBNAIL_SIZE = 192;
/** Cards rendered before the first paint (more than a large screen shows), then per task. */
const FIRST_CARDS = 60;
const LATER_CARDS = 100;
let renders = 0;

let items: GalleryItem[] = [];
const selected = new Set<string>();

const search = h('input', {
  className: 'filter-text',
  attrs: { type: 'search', placeholder: 'Filter by prompt or parameter', 'aria-label': 'Filter' },
});
const modelSelect = h('select', { className: 'filter-model', attrs: { 'aria-label': 'Model' } });
const statusSelect = h('select', { className: 'filter-status', attrs: { 'aria-label': 'State' } });
const count = h('span', { className: 'count' });
const saveButton = h('button', { text: 'Save Selected', attrs: { 'data-bulk': 'save', disabled: '' } });
const deleteButton = h('button', {
  className: 'secondary',
  text: 'Delete Selected',
  attrs: { 'data-bulk': 'delete', disabled: '' },
});
const grid = h('div', { className: 'grid', attrs: { role: 'list' } });
const app = document.getElementById('app') ?? document.body;
app.append(
  h('div', { className: 'toolbar' }, search, modelSelect, statusSelect, count, saveButton, deleteButton),
  grid,
);

function options(select: HTMLSelectElement, all: string, values: string[]): void {
  const current = select.value;
  select.replaceChildren(
    h('option', { text: all, attrs: { value: '' } }),
    ...values.map((v) => h('option', { text: v, attrs: { value: v } })),
  );
  select.value = values.includes(current) ? current : '';
}

function card(item: GalleryItem): HTMLElement {
  const checkbox = h('input', {
    attrs: { type: 'checkbox', 'aria-label': 'Select', 'data-select': item.id },
  });
  checkbox.checked = selected.has(item.id);
  // A running job says how far it is, where the gateway tells.
  const state =
    item.progress !== undefined ? `${item.status} ${Math.round(item.progress * 100)}%` : item.status;
  let preview: HTMLElement;
  if (item.src && item.kind === 'image') {
    const img = h('img', {
      className: 'thumb',
      attrs: { src: item.src, alt: item.prompt, loading: 'lazy', decoding: 'async' },
    });
    if (item.needsThumbnail) img.addEventListener('load', () => makeThumbnail(item.id, img), { once: true });
    preview = img;
  } else if ((item.kind === 'video' || item.kind === 'audio') && item.status === 'completed') {
    preview = mediaTile(item);
  } else if (item.excerpt && item.kind === 'text') {
    // A text result's beginning, as text: never markup or links.
    preview = h('div', { className: 'thumb placeholder excerpt', text: item.excerpt });
  } else {
    preview = h('div', {
      className: `thumb placeholder ${item.kind}`,
      text: item.status === 'completed' ? item.kind : state,
    });
  }
  // The picture is the handle, so the card's text stays selectable.
  preview.draggable = item.status === 'completed';
  if (preview.draggable) preview.title = 'Drag into an editor with Shift held to save and insert';
  const cost =
    typeof item.cost === 'number' && Number.isFinite(item.cost)
      ? ` · ${formatCost(item.cost)}`
      : item.status === 'completed'
        ? ` · ${COST_NOT_REPORTED}`
        : '';
  const meta = `${item.model} · ${relativeTime(item.createdAt)}${cost}`;
  const actions = h('div', { className: 'actions' });
  const buttons: Array<[string, string]> =
    item.status === 'completed'
      ? [
          ['open', 'Open'],
          ['insert', 'Insert'],
          ['save', 'Save'],
          ['rerun', 'Re-run'],
          ...(item.kind === 'image' ? [['variation', 'Variation'] as [string, string]] : []),
        ]
      : [['rerun', 'Re-run']];
  for (const [action, label] of buttons)
    actions.append(
      h('button', {
        className: 'secondary',
        text: label,
        attrs: { 'data-action': action, 'data-id': item.id },
      }),
    );
  return h(
    'div',
    {
      className: `card status-${item.status}${item.saved ? ' saved' : ''}`,
      attrs: { role: 'listitem', 'data-id': item.id },
    },
    h('label', { className: 'select' }, checkbox),
    preview,
    h('p', { className: 'prompt', text: item.prompt, attrs: { title: item.prompt } }),
    h('p', { className: 'meta', text: meta }),
    ...(item.parameters ? [h('p', { className: 'params', text: item.parameters })] : []),
    h('p', {
      className: 'state',
      text: item.error ? `${item.status}: ${item.error}` : state + (item.saved ? ' · saved' : ''),
    }),
    actions,
  );
}

function render(): void {
  options(modelSelect, 'All models', [...new Set(items.map((i) => i.model))].sort());
  options(statusSelect, 'All states', [...new Set(items.map((i) => i.status))].sort());
  const shown = filterGallery(items, {
    text: search.value,
    model: modelSelect.value,
    status: statusSelect.value,
  });
  // The first screenful at once, the rest in later tasks: a long gallery opens without a wait.
  const generation = ++renders;
  const first = document.createDocumentFragment();
  for (const item of shown.slice(0, FIRST_CARDS)) first.append(card(item));
  grid.replaceChildren(first);
  const appendFrom = (start: number) => {
    if (generation !== renders || start >= shown.length) return;
    const more = document.createDocumentFragment();
    for (const item of shown.slice(start, start + LATER_CARDS)) more.append(card(item));
    grid.append(more);
    setTimeout(() => appendFrom(start + LATER_CARDS));
  };
  setTimeout(() => appendFrom(FIRST_CARDS));
  if (!shown.length)
    grid.append(
      h('p', {
        className: 'empty',
        text: items.length ? 'No result matches the filter.' : 'No media results yet.',
      }),
    );
  count.textContent = `${shown.length} of ${items.length}`;
  updateBulk();
}

function updateBulk(): void {
  for (const id of selected) if (!items.some((i) => i.id === id)) selected.delete(id);
  saveButton.toggleAttribute('disabled', selected.size === 0);
  deleteButton.toggleAttribute('disabled', selected.size === 0);
  saveButton.textContent = selected.size ? `Save ${selected.size}` : 'Save Selected';
  deleteButton.textContent = selected.size ? `Delete ${selected.size}` : 'Delete Selected';
}

/** Draws the loaded image small, once, and hands it to the host to cache. */
/**
 * A completed video or audio result: a tile that says what it is (▶ Video, ♪ Audio) over the
 * video's poster (its cached first frame) or its first frame, loaded as metadata and then cached.
 * A file that cannot be decoded leaves the tile as it is, never a blank box.
 */
function mediaTile(item: GalleryItem): HTMLElement {
  const video = item.kind === 'video';
  const tile = h('div', {
    className: `thumb tile ${item.kind}`,
    attrs: { role: 'img', 'aria-label': `${video ? 'Video' : 'Audio'}: ${item.prompt}` },
  });
  if (video && item.poster)
    tile.append(h('img', { attrs: { src: item.poster, alt: '', loading: 'lazy', decoding: 'async' } }));
  else if (video && item.src) {
    const clip = h('video', { attrs: { src: item.src, preload: 'metadata', muted: '', playsinline: '' } });
    clip.addEventListener('loadeddata', () => item.needsThumbnail && makeThumbnail(item.id, clip), {
      once: true,
    });
    clip.addEventListener('error', () => clip.remove(), { once: true });
    tile.append(clip);
  }
  tile.append(
    h(
      'span',
      { className: 'badge' },
      h('span', { className: 'glyph', text: video ? '▶' : '♪', attrs: { 'aria-hidden': 'true' } }),
      h('span', { text: video ? 'Video' : 'Audio' }),
    ),
  );
  return tile;
}

function makeThumbnail(id: string, img: HTMLImageElement | HTMLVideoElement): void {
  const [width, height] =
    img instanceof HTMLVideoElement
      ? [img.videoWidth, img.videoHeight]
      : [img.naturalWidth, img.naturalHeight];
  if (!width || !height) return;
  const scale = Math.min(1, THUMBNAIL_SIZE / Math.max(width, height, 1));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(width * scale));
  canvas.height = Math.max(1, Math.round(height * scale));
  const context = canvas.getContext('2d');
  if (!context) return;
  context.drawImage(img, 0, 0, canvas.width, canvas.height);
  api.postMessage({ type: 'thumbnail', id, dataUrl: canvas.toDataURL('image/webp', 0.8) });
}

let filterTimer: ReturnType<typeof setTimeout> | undefined;
search.addEventListener('input', () => {
  clearTimeout(filterTimer);
  filterTimer = setTimeout(render, 80);
});
modelSelect.addEventListener('change', render);
statusSelect.addEventListener('change', render);

document.addEventListener('change', (event) => {
  const box = event.target instanceof HTMLInputElement ? event.target : null;
  const id = box?.dataset.select;
  if (!box || !id) return;
  if (box.checked) selected.add(id);
  else selected.delete(id);
  box.closest('.card')?.classList.toggle('selected', box.checked);
  updateBulk();
});

document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest<HTMLElement>('button') : null;
  if (!button) return;
  const bulk = button.dataset.bulk;
  if ((bulk === 'save' || bulk === 'delete') && selected.size) {
    api.postMessage({ type: 'action', action: bulk, ids: [...selected] });
    return;
  }
  const action = button.dataset.action;
  const id = button.dataset.id;
  if (
    id &&
    (action === 'open' ||
      action === 'insert' ||
      action === 'save' ||
      action === 'rerun' ||
      action === 'variation')
  )
    api.postMessage({ type: 'action', action, ids: [id] });
});

// A completed result (or the selection it belongs to) dragged into an editor, with Shift held as
// VS Code asks: the editor's drop provider saves it into the workspace and inserts its reference,
// as Insert does. Same payload as a drag from the Media Jobs tree.
grid.addEventListener('dragstart', (event) => {
  const handle = event.target instanceof HTMLElement && event.target.draggable ? event.target : null;
  const id = handle?.closest<HTMLElement>('.card')?.dataset.id;
  if (!id || !event.dataTransfer) return;
  const completed = (jobId: string) => items.some((i) => i.id === jobId && i.status === 'completed');
  const ids = selected.has(id) ? [...selected].filter(completed) : [id];
  // Only our payload: the image's own URL (a webview resource) would let an editor offer a
  // link to the cache instead of saving the result.
  event.dataTransfer.clearData();
  event.dataTransfer.setData(UiId.mediaJobDrag, encodeDraggedJobs(ids));
  event.dataTransfer.effectAllowed = 'copy';
});

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const message = parseGalleryHostMessage(event.data);
  if (!message) return;
  items = message.items;
  render();
  // For measurements: the first frame that shows the results.
  requestAnimationFrame(() => performance.mark('gallery-painted'));
});

api.postMessage({ type: 'ready' });
