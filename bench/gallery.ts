/**
 * Media studio figures:
 * - The gallery's first paint with 500 results: the real page (renderPage, CSP, the production
 *   bundle) in headless Chromium, answered with 500 results (cached 192-pixel thumbnails) as soon
 *   as it says it is ready, as the host does. Measured in the page: navigation start to the
 *   first frame painted with the cards, and receipt of the results to that frame.
 * - The same with 500 results as a gateway without `/v1/media` serves them (OpenRouter's images,
 *   chat pictures, videos, audio): cached thumbnails and video posters, audio tiles; and how many
 *   clips the page loaded for it (none: a video shows its cached poster).
 * - Storage cleanup: 500 stored results of 20–200 KB as real files (a third saved to the
 *   workspace), a cap below their total; the planner the extension uses decides, the files go,
 *   and what is left is measured on disk.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { GalleryItem } from '../src/core/protocol/galleryProtocol';
import { planCleanup } from '../src/core/mediaStudio/storageBudget';
import { GALLERY_PAGE, createNonce, renderPage } from '../src/host/webview/webviewShell';
import { launchChromium } from '../test/launch/chromium';
import { gradientPng } from '../test/simulator/png';
import { KB, MB, median, round } from './report';
import type { BenchRow, SectionResult } from './report';

const RESULTS = 500;
const RUNS = 5;
const FIRST_PAINT_GOAL_MS = 300;
const ORIGIN = 'http://gallery.bench';
const ROOT = path.resolve(__dirname, '..', '..');

function items(): GalleryItem[] {
  const models = ['openai/gpt-image-1', 'black-forest-labs/flux-1.1-pro', 'google/imagen-4'];
  return Array.from({ length: RESULTS }, (_, i) => ({
    id: `media-${i}`,
    prompt: `A watercolour lighthouse at dusk, variation ${i}, soft light over the water`,
    model: models[i % models.length],
    status: i % 25 === 0 ? 'failed' : 'completed',
    parameters: 'size: 1024x1024, quality: high',
    createdAt: Date.now() - i * 60_000,
    kind: 'image',
    src: `${ORIGIN}/thumbs/${i % 50}.png`,
    saved: i % 3 === 0,
  }));
}

/**
 * 500 results as a gateway without `/v1/media` serves them (OpenRouter's images, chat pictures and
 * videos, audio) and as MediaGalleryPanel sends them once their thumbnails are cached: images by
 * their cached thumbnail, videos by their cached first frame (the poster; the clip itself is not
 * loaded), audio as its tile; each with the cost the gateway reported.
 */
function gatewayItems(): GalleryItem[] {
  const routes: Array<{ model: string; kind: GalleryItem['kind']; cost: number }> = [
    { model: 'google/gemini-2.5-flash-image', kind: 'image', cost: 0.039 },
    { model: 'openai/gpt-5-image', kind: 'image', cost: 0.04 },
    { model: 'black-forest-labs/flux.2-pro', kind: 'image', cost: 0.03 },
    { model: 'google/veo-3.1', kind: 'video', cost: 0.5 },
    { model: 'openai/sora-2-pro', kind: 'video', cost: 1.2 },
    { model: 'openai/gpt-audio', kind: 'audio', cost: 0.01 },
  ];
  return Array.from({ length: RESULTS }, (_, i) => {
    const route = routes[i % routes.length];
    const thumb = `${ORIGIN}/thumbs/${i % 50}.png`;
    return {
      id: `chat-img-${i.toString(36)}`,
      prompt: `A watercolour lighthouse at dusk, variation ${i}, soft light over the water`,
      model: route.model,
      status: 'completed',
      parameters: route.kind === 'video' ? 'duration: 8, aspect_ratio: 16:9' : 'aspect_ratio: 1:1',
      createdAt: Date.now() - i * 60_000,
      kind: route.kind,
      cost: route.cost,
      ...(route.kind === 'image' ? { src: thumb } : {}),
      ...(route.kind === 'video' ? { src: `${ORIGIN}/results/${i}.mp4`, poster: thumb } : {}),
      ...(route.kind === 'audio' ? { src: `${ORIGIN}/results/${i}.mp3` } : {}),
      saved: i % 3 === 0,
    };
  });
}

async function firstPaint(
  shown: GalleryItem[] = items(),
): Promise<{ openMs: number; renderMs: number; cards: number; clipsLoaded: number }[]> {
  const page = renderPage(GALLERY_PAGE, {
    cspSource: ORIGIN,
    nonce: createNonce(),
    resource: (relative) => `${ORIGIN}/${relative}`,
  });
  const thumbnails = Array.from({ length: 50 }, (_, i) => gradientPng(192, 192, i));
  const message = JSON.stringify({ type: 'items', items: shown });
  const browser = await launchChromium();
  const runs = [];
  try {
    for (let run = 0; run < RUNS; run++) {
      let clipsLoaded = 0;
      const context = await browser.newContext();
      await context.route(`${ORIGIN}/**`, async (route) => {
        const url = new URL(route.request().url());
        if (url.pathname === '/gallery.html')
          return route.fulfill({ body: page, contentType: 'text/html; charset=utf-8' });
        // A clip or a sound would be loaded only if the page asked for it: counted, never served.
        if (url.pathname.startsWith('/results/')) {
          clipsLoaded++;
          return route.fulfill({ status: 404 });
        }
        const thumb = /^\/thumbs\/(\d+)\.png$/.exec(url.pathname);
        if (thumb) return route.fulfill({ body: thumbnails[Number(thumb[1])], contentType: 'image/png' });
        const file = path.join(ROOT, url.pathname);
        if (!file.startsWith(ROOT)) return route.abort();
        const type = file.endsWith('.js')
          ? 'text/javascript'
          : file.endsWith('.css')
            ? 'text/css'
            : undefined;
        return route.fulfill({ body: readFileSync(file), contentType: type });
      });
      const tab = await context.newPage();
      // The host answers the page's "ready" with every result, as MediaGalleryPanel does.
      await tab.addInitScript(`window.acquireVsCodeApi = () => ({
        postMessage(m) {
          if (m.type !== 'ready') return;
          setTimeout(() => {
            performance.mark('gallery-items');
            window.dispatchEvent(new MessageEvent('message', { data: ${message} }));
          });
        },
      });`);
      await tab.goto(`${ORIGIN}/gallery.html`);
      await tab.waitForFunction(() => performance.getEntriesByName('gallery-painted').length > 0, undefined, {
        timeout: 30_000,
      });
      const figures = await tab.evaluate(() => {
        const painted = performance.getEntriesByName('gallery-painted')[0].startTime;
        const received = performance.getEntriesByName('gallery-items')[0].startTime;
        return {
          openMs: painted,
          renderMs: painted - received,
          cards: (
            globalThis as unknown as { document: { querySelectorAll(selector: string): { length: number } } }
          ).document.querySelectorAll('.card').length,
        };
      });
      runs.push({ ...figures, clipsLoaded });
      await context.close();
    }
  } finally {
    await browser.close();
  }
  return runs;
}

function cleanup(): { capMB: number; beforeMB: number; afterMB: number; ms: number; removed: number } {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'gateway-media-bench-'));
  try {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const saved = new Set<string>();
    for (let i = 0; i < RESULTS; i++) {
      writeFileSync(
        path.join(folder, `media-${i}-1.png`),
        Buffer.alloc(Math.round((20 + random() * 180) * KB)),
      );
      if (i % 3 === 0) saved.add(`media-${i}`);
    }
    const capMB = 20;
    const started = performance.now();
    // What the extension does: measure each result's files, plan, delete.
    const results = readdirSync(folder).map((name, index) => ({
      jobId: name.replace(/-1\.png$/, ''),
      bytes: statSync(path.join(folder, name)).size,
      finishedAt: index,
      saved: saved.has(name.replace(/-1\.png$/, '')),
    }));
    const plan = planCleanup(results, capMB * MB);
    for (const id of plan.remove) unlinkSync(path.join(folder, `${id}-1.png`));
    const ms = performance.now() - started;
    const after = readdirSync(folder).reduce((sum, name) => sum + statSync(path.join(folder, name)).size, 0);
    return { capMB, beforeMB: plan.totalBytes / MB, afterMB: after / MB, ms, removed: plan.remove.length };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

export async function benchGallery(): Promise<SectionResult> {
  const runs = await firstPaint();
  const open = median(runs.map((r) => r.openMs));
  const render = median(runs.map((r) => r.renderMs));
  const served = await firstPaint(gatewayItems());
  const servedOpen = median(served.map((r) => r.openMs));
  const store = cleanup();
  const rows: BenchRow[] = [
    {
      name: `gallery: first paint, ${RESULTS} results (open → painted)`,
      value: round(open, 1),
      unit: 'ms',
      goal: `< ${FIRST_PAINT_GOAL_MS} ms`,
      ratio: round(open / FIRST_PAINT_GOAL_MS),
      met: open < FIRST_PAINT_GOAL_MS,
    },
    { name: `gallery: results received → painted`, value: round(render, 1), unit: 'ms' },
    {
      name: `gallery: first paint, ${RESULTS} gateway-served images, videos, audio (thumbnails cached)`,
      value: round(servedOpen, 1),
      unit: 'ms',
      goal: `≤ ${FIRST_PAINT_GOAL_MS} ms`,
      ratio: round(servedOpen / FIRST_PAINT_GOAL_MS),
      met: servedOpen <= FIRST_PAINT_GOAL_MS,
    },
    {
      name: 'gallery: clips and sounds loaded for that first paint (videos show their cached poster)',
      value: Math.max(...served.map((r) => r.clipsLoaded)),
      unit: 'files',
      goal: '0',
      met: served.every((r) => r.clipsLoaded === 0),
    },
    {
      name: `storage cleanup: ${RESULTS} results, ${round(store.beforeMB, 1)} MB → cap ${store.capMB} MB`,
      value: round(store.afterMB, 2),
      unit: 'MB',
      goal: `≤ ${store.capMB} MB`,
      ratio: round(store.afterMB / store.capMB),
      met: store.afterMB <= store.capMB,
    },
    {
      name: `storage cleanup: measure, plan, delete ${store.removed} files`,
      value: round(store.ms, 1),
      unit: 'ms',
    },
  ];
  return {
    rows,
    notes: [
      `gallery: median of ${RUNS} fresh pages; ${runs[0]?.cards ?? 0} cards in the DOM when measured (the first screenful is painted at once, the rest added in later tasks).`,
    ],
  };
}
