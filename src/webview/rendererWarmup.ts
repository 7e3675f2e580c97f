/**
 * Work a page does once, done before the first reply instead of in its frames. V8 compiles
 * markdown-it's rules, linkify's patterns, the renderer and DOMPurify on their first use: 15 to
 * 20 ms of main-thread time in the first frame of the first streamed reply, measured in the
 * bench. highlight.js compiles a grammar on the first block in that language (5 to 55 ms, in a
 * task of its own, but still while the reply streams). Once the panel has painted, this does
 * both in idle time, one small piece per idle callback, so no piece is a long task.
 */
import { whenIdle } from './dom';
import { compileNextGrammar } from './highlight';
import { parseMarkdown, renderTokens } from './markdown';

/** Every kind of block and inline a reply uses (a fence without a language: no grammar here). */
const SAMPLE = [
  '## Heading',
  '',
  'A paragraph with **bold**, _em_, `code`, ~~gone~~, a [link](https://example.com/a) and https://example.com.',
  '',
  '- item one',
  '  1. nested',
  '',
  '> quoted',
  '',
  '| A | B |',
  '|---|:-:|',
  '| 1 | 2 |',
  '',
  '```',
  'plain code',
  '```',
  '',
  '[ref]: https://example.com/ref',
].join('\n');

let tokens: ReturnType<typeof parseMarkdown> = [];
const pieces: Array<() => boolean> = [
  () => {
    parseMarkdown('Just *one* line with `code`.', {});
    return false;
  },
  () => {
    tokens = parseMarkdown(SAMPLE, {});
    return false;
  },
  () => {
    renderTokens(tokens, {});
    tokens = [];
    return false;
  },
  // True while grammars are left: the same piece runs again in the next idle callback.
  () => compileNextGrammar(),
];

/** Starts warming up after the next paint; each piece runs in an idle callback of its own. */
export function warmUpRendering(): void {
  const next = (): void =>
    whenIdle(() => {
      const piece = pieces[0];
      if (!piece) {
        // For the bench, which streams its reply into a panel the user has had open a while.
        document.body.dataset.rendererReady = '';
        return;
      }
      if (!piece()) pieces.shift();
      next();
    });
  requestAnimationFrame(() => setTimeout(next, 0));
}
