/**
 * Markdown for model output, which is untrusted. Three layers keep it inert:
 * 1. markdown-it with raw HTML off and links restricted to http/https/mailto (`isAllowedLink`);
 * 2. our own renderer rules: images never load from the network (a link-like placeholder
 *    instead; only inline `data:` pictures are shown), tables align with classes, not styles;
 * 3. DOMPurify over the produced HTML with a short allow-list (no styles, forms, frames, scripts).
 */
import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';
import type { Env, Token } from 'markdown-it';
import { isAllowedLink } from '../core/protocol/chatProtocol';
import { decorateCodeBlocks } from './codeBlocks';
import { escapeHtml } from '../core/util/text';
import {
  canHighlight,
  HIGHLIGHT_NOW_CHARS,
  HIGHLIGHT_PENDING_CLASS,
  highlightCode,
  highlightLater,
  isGrammarReady,
  recentHighlight,
  setHighlightSanitizer,
} from './highlight';

/** Per-text markdown-it environment; markdown-it also keeps link reference definitions in it. */
export interface RenderEnv extends Env {
  /** Tells whether a fence's closing marker has not arrived yet; absent: every fence is closed. */
  isFenceOpen?: (token: Token) => boolean;
  /**
   * Closed fences are highlighted after this render, in idle time (a reply catching up: its
   * text first); absent: short code in a language whose grammar is ready is highlighted now.
   */
  highlightLater?: boolean;
}

/** Token attributes are typed loosely (numbers too); every one this file reads is text. */
function attribute(token: Token, name: string): string {
  const value = token.attrGet(name);
  return value === null ? '' : String(value);
}

const INLINE_IMAGE = /^data:image\/(?:png|gif|jpeg|webp);base64,[a-z0-9+/=\s]+$/i;

const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });
// Only URLs with a scheme become links: fuzzy matching would turn file names such as `main.py`
// (.py is a country domain) into links to websites.
md.linkify.set({ fuzzyLink: false, fuzzyEmail: false });
md.validateLink = (url: string) => isAllowedLink(url) || INLINE_IMAGE.test(url);

const renderRules = md.renderer.rules;

renderRules.link_open = (tokens, index, options, _env, renderer) => {
  const token = tokens[index];
  const href = attribute(token, 'href');
  if (isAllowedLink(href)) {
    // Webviews show no status bar, so the target is shown as a tooltip before anyone clicks. It
    // is always the real target: a title from the model (`[a](https://x "https://y")`) could
    // name another one, so it is dropped.
    token.attrSet('title', href);
  } else {
    token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'title');
    // An inline picture's data: URI reaches here as a link target; keep the text, drop the target.
    token.attrs = (token.attrs ?? []).filter(([name]) => name !== 'href');
  }
  return renderer.renderToken(tokens, index, options);
};

renderRules.image = (tokens, index, options, env, renderer) => {
  const token = tokens[index];
  const src = attribute(token, 'src');
  const alt = renderer.renderInlineAsText(token.children ?? [], options, env);
  if (INLINE_IMAGE.test(src)) {
    return `<img src="${escapeHtml(src)}" alt="${escapeHtml(alt)}" class="inline-image">`;
  }
  // Loading a remote image would tell its server that this reply was read; show where it is instead.
  const placeholder = `[image: ${alt}] ${src}`;
  return `<a href="${escapeHtml(src)}" title="${escapeHtml(src)}" class="image-link">${escapeHtml(placeholder)}</a>`;
};

function alignmentToClass(tokens: Token[], index: number): void {
  const style = attribute(tokens[index], 'style');
  const alignment = style && /^text-align:(left|right|center)$/.exec(style);
  tokens[index].attrs = (tokens[index].attrs ?? []).filter(([name]) => name !== 'style');
  if (alignment) tokens[index].attrJoin('class', `align-${alignment[1]}`);
}
renderRules.th_open = (tokens, index, options, _env, renderer) => {
  alignmentToClass(tokens, index);
  return renderer.renderToken(tokens, index, options);
};
renderRules.td_open = renderRules.th_open;

/** The fence's language, reduced to characters that are safe and meaningful in a class name. */
export function fenceLanguage(info: string): string {
  const word = info.trim().split(/\s+/)[0] ?? '';
  return /^[\w+#.-]{1,32}$/.test(word) ? word.toLowerCase() : '';
}

renderRules.fence = (tokens, index, _options, env?: RenderEnv) => {
  const token = tokens[index];
  const language = fenceLanguage(token.info);
  const open = env?.isFenceOpen?.(token) ?? false;
  // An open fence at the streaming tail changes every frame: highlight it once it is complete.
  // Long code, and the first block of a language (its grammar compiles on first use), is
  // highlighted after rendering, in short tasks (see `highlightPendingCode`).
  const code = token.content;
  let body: string;
  let later = false;
  if (open) body = escapeHtml(code);
  else if (
    !canHighlight(language) ||
    (!env?.highlightLater && code.length <= HIGHLIGHT_NOW_CHARS && isGrammarReady(language))
  )
    body = highlightCode(code, language);
  else {
    const recent = recentHighlight(code, language);
    later = recent === undefined;
    body = recent ?? escapeHtml(code);
  }
  const classes = [
    language ? `language-${language}` : '',
    open ? '' : 'hljs',
    later ? HIGHLIGHT_PENDING_CLASS : '',
  ];
  const codeClass = classes.filter(Boolean).join(' ');
  return `<pre${open ? ' class="code-open"' : ''}><code class="${codeClass}">${body}</code></pre>\n`;
};

const PURIFY_CONFIG = {
  ALLOWED_TAGS: [
    'a',
    'blockquote',
    'br',
    'code',
    'del',
    'em',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'hr',
    'img',
    'li',
    'ol',
    'p',
    'pre',
    's',
    'span',
    'strong',
    'table',
    'tbody',
    'td',
    'th',
    'thead',
    'tr',
    'ul',
  ],
  ALLOWED_ATTR: ['href', 'title', 'class', 'alt', 'src', 'start'],
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  // `src="data:image/..."` passes through DOMPurify's own data-URI rule for <img>; nothing else may.
  ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
  RETURN_DOM_FRAGMENT: true as const,
};

/** Block tokens (with inline children) of `source`. */
export function parseMarkdown(source: string, env: RenderEnv): Token[] {
  return md.parse(source, env);
}

/** highlight.js output is escaped text in spans; it is sanitized all the same. */
const HIGHLIGHT_PURIFY_CONFIG = {
  ALLOWED_TAGS: ['span'],
  ALLOWED_ATTR: ['class'],
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  RETURN_DOM_FRAGMENT: true as const,
};
setHighlightSanitizer((html) => DOMPurify.sanitize(html, HIGHLIGHT_PURIFY_CONFIG));

/** Sanitized DOM for parsed tokens, with toolbars on code blocks. */
export function renderTokens(tokens: Token[], env: RenderEnv): DocumentFragment {
  const html = md.renderer.render(tokens, md.options, env);
  const fragment = DOMPurify.sanitize(html, PURIFY_CONFIG);
  decorateCodeBlocks(fragment);
  highlightPendingCode(fragment);
  return fragment;
}

/** Long code blocks in `root` get their highlighting in short tasks after this one. */
function highlightPendingCode(root: DocumentFragment): void {
  for (const code of Array.from(root.querySelectorAll<HTMLElement>(`code.${HIGHLIGHT_PENDING_CLASS}`))) {
    const language = Array.from(code.classList)
      .find((name) => name.startsWith('language-'))
      ?.slice('language-'.length);
    if (language) highlightLater(code, code.textContent ?? '', language);
    else code.classList.remove(HIGHLIGHT_PENDING_CLASS);
  }
}

export function renderMarkdown(source: string): DocumentFragment {
  const env: RenderEnv = {};
  return renderTokens(parseMarkdown(source, env), env);
}
