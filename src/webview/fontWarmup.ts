/**
 * The first time a page lays out text in a font it has not used yet (a heading's size, bold,
 * italic, the editor's monospace font in a code block), Chromium asks the browser process for
 * the font and waits for it: several milliseconds each, on a busy machine tens. Left to the first
 * streamed reply, those waits land in its frames. So once the panel has painted, one hidden
 * sample of every kind of text a reply shows is laid out, and removed again.
 */
import { h } from './dom';

const SAMPLE_TEXT = 'Aa Zz 0123 -> … “quoted” ✓ é';

function sample(): HTMLElement {
  const text = (tag: keyof HTMLElementTagNameMap): HTMLElement => h(tag, { text: SAMPLE_TEXT });
  const code = h(
    'code',
    { className: 'hljs' },
    h('span', { className: 'hljs-keyword', text: 'const' }),
    h('span', { className: 'hljs-comment', text: ' // comment' }),
    h('span', { className: 'hljs-strong', text: ' strong' }),
    ` ${SAMPLE_TEXT}`,
  );
  const table = h(
    'table',
    {},
    h('thead', {}, h('tr', {}, text('th'))),
    h('tbody', {}, h('tr', {}, h('td', {}, text('code')))),
  );
  return h(
    'div',
    { className: 'markdown-body reply font-warmup', attrs: { 'aria-hidden': 'true' } },
    ...(['h1', 'h2', 'h3', 'h4', 'h5', 'h6'] as const).map((tag) => text(tag)),
    h('p', {}, text('strong'), text('em'), text('code'), text('del'), h('a', { text: SAMPLE_TEXT })),
    h('blockquote', {}, text('p')),
    h('pre', {}, code),
    table,
  );
}

/** Lays out the sample inside `container` (so the panel's styles apply) after the next paint. */
export function warmUpFonts(container: HTMLElement): void {
  requestAnimationFrame(() =>
    setTimeout(() => {
      const element = sample();
      container.append(element);
      // Reading a size lays the sample out now, which is what loads its fonts.
      void element.offsetHeight;
      element.remove();
    }, 0),
  );
}
