/**
 * Syntax highlighting with highlight.js core and a chosen set of common languages (the full build
 * would triple the bundle). Unknown languages stay plain: automatic detection is slow and often
 * wrong on short snippets.
 */
import { escapeHtml } from '../core/util/text';
import { whenIdle } from './dom';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import csharp from 'highlight.js/lib/languages/csharp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import dockerfile from 'highlight.js/lib/languages/dockerfile';
import go from 'highlight.js/lib/languages/go';
import ini from 'highlight.js/lib/languages/ini';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import kotlin from 'highlight.js/lib/languages/kotlin';
import markdown from 'highlight.js/lib/languages/markdown';
import php from 'highlight.js/lib/languages/php';
import plaintext from 'highlight.js/lib/languages/plaintext';
import python from 'highlight.js/lib/languages/python';
import ruby from 'highlight.js/lib/languages/ruby';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const languages = {
  bash,
  c,
  cpp,
  csharp,
  css,
  diff,
  dockerfile,
  go,
  ini,
  java,
  javascript,
  json,
  kotlin,
  markdown,
  php,
  plaintext,
  python,
  ruby,
  rust,
  shell,
  sql,
  typescript,
  xml,
  yaml,
};
for (const [name, definition] of Object.entries(languages)) hljs.registerLanguage(name, definition);
// Fence labels models commonly use that the grammars above do not list as aliases.
hljs.registerAliases(['jsonc', 'json5'], { languageName: 'json' });
hljs.registerAliases(['toml'], { languageName: 'ini' });
hljs.registerAliases(['sh', 'zsh', 'console'], { languageName: 'bash' });
hljs.registerAliases(['text', 'txt'], { languageName: 'plaintext' });

/**
 * A closed code block at the streaming tail is re-rendered every frame until the next block
 * starts; remembering the last few results keeps that from re-highlighting the same code.
 */
const recentResults = new Map<string, string>();
const RECENT_LIMIT = 16;

/** Code up to this length is highlighted as it renders (well under a millisecond or two)... */
export const HIGHLIGHT_NOW_CHARS = 2000;
/** ...longer code later, in pieces of about this size, each in its own short task. */
const PIECE_CHARS = 6000;
/** Time one highlighting task may take before it yields to input and rendering. */
const SLICE_MS = 8;
/** Class of a code element whose highlighting is still to come (tests and the bench wait on it). */
export const HIGHLIGHT_PENDING_CLASS = 'hl-pending';

function remember(key: string, html: string): void {
  recentResults.set(key, html);
  if (recentResults.size > RECENT_LIMIT) {
    const oldest = recentResults.keys().next().value;
    if (oldest !== undefined) recentResults.delete(oldest);
  }
}

function highlightPiece(code: string, language: string): string {
  try {
    return hljs.highlight(code, { language, ignoreIllegals: true }).value;
  } catch {
    return escapeHtml(code);
  }
}

/** A node of highlight.js's token tree: a scope (with children) or a run of text. */
interface ScopeNode {
  scope?: string;
}
interface TreeWalker {
  addText(text: string): void;
  openNode(node: ScopeNode): void;
  closeNode(node: ScopeNode): void;
}

/**
 * The class highlight.js's HTML renderer gives a scope (its `scopeToCSSClass`): `hljs-keyword`,
 * `hljs-title class_` for `title.class`, `language-xml` for an embedded language.
 */
export function scopeClass(scope: string): string {
  if (scope.startsWith('language:')) return scope.replace('language:', 'language-');
  const [first, ...rest] = scope.split('.');
  return [`hljs-${first}`, ...rest.map((piece, index) => `${piece}${'_'.repeat(index + 1)}`)].join(' ');
}

/**
 * Highlighted code as DOM, built from highlight.js's token tree rather than parsed from its
 * HTML: text only ever becomes text nodes and scopes become spans with a class, so nothing in
 * the code can become markup, and there is no HTML to parse or sanitize (for long code, most of
 * the cost of colouring it). The same nodes as the sanitized HTML (a webview test compares
 * them). Undefined when this highlight.js has no token tree to walk (the caller then parses
 * and sanitizes the HTML).
 */
function highlightPieceDom(code: string, language: string): { html: string; dom?: DocumentFragment } {
  let result: ReturnType<typeof hljs.highlight>;
  try {
    result = hljs.highlight(code, { language, ignoreIllegals: true });
  } catch {
    return { html: escapeHtml(code) };
  }
  const tree = result._emitter as unknown as { walk?: (walker: TreeWalker) => unknown };
  if (typeof tree.walk !== 'function') return { html: result.value };
  const dom = document.createDocumentFragment();
  const open: Node[] = [dom];
  tree.walk({
    addText: (text) => open[open.length - 1].appendChild(document.createTextNode(text)),
    openNode: (node) => {
      if (!node.scope) return;
      const span = document.createElement('span');
      span.className = scopeClass(node.scope);
      open[open.length - 1].appendChild(span);
      open.push(span);
    },
    closeNode: (node) => {
      if (node.scope && open.length > 1) open.pop();
    },
  });
  return { html: result.value, dom };
}

export function canHighlight(language: string): boolean {
  return !!language && !!hljs.getLanguage(language);
}

/**
 * Whether the language's grammar is compiled. highlight.js compiles a grammar on its first use,
 * which takes 5 to 55 ms (Java the most); that must not happen inside a streaming frame, so the
 * first block of each language is highlighted in a task of its own (`highlightLater`).
 */
export function isGrammarReady(language: string): boolean {
  return hljs.getLanguage(language)?.isCompiled === true;
}

/** The order `compileNextGrammar` compiles grammars in: the common ones first. */
const GRAMMAR_ORDER = [
  'typescript',
  'javascript',
  'python',
  'bash',
  'json',
  ...Object.keys(languages).filter(
    (name) => !['typescript', 'javascript', 'python', 'bash', 'json'].includes(name),
  ),
];

/**
 * Compiles one grammar ahead of its first use (see `isGrammarReady`); false when there is none
 * left to compile.
 */
export function compileNextGrammar(): boolean {
  // Each is tried once, even if it fails to compile.
  let language: string | undefined;
  do language = GRAMMAR_ORDER[nextGrammar++];
  while (language !== undefined && isGrammarReady(language));
  if (language === undefined) return false;
  highlightPiece('x', language);
  return true;
}
let nextGrammar = 0;

/** Highlighted HTML for `code` if it was highlighted recently. */
export function recentHighlight(code: string, language: string): string | undefined {
  return recentResults.get(`${language}\u0000${code}`);
}

/** Highlighted HTML for `code`, or the escaped text when the language is unknown. */
export function highlightCode(code: string, language: string): string {
  if (!canHighlight(language)) return escapeHtml(code);
  const key = `${language}\u0000${code}`;
  const cached = recentResults.get(key);
  if (cached !== undefined) return cached;
  const html = highlightPiece(code, language);
  remember(key, html);
  return html;
}

/**
 * Pieces of about PIECE_CHARS, cut after a blank line where there is one (a blank line rarely
 * falls inside a string or a comment, so each piece highlights as it would in the whole).
 */
function pieces(code: string): string[] {
  const result: string[] = [];
  let start = 0;
  while (code.length - start > PIECE_CHARS) {
    const limit = start + PIECE_CHARS;
    let end = code.lastIndexOf('\n\n', limit);
    if (end <= start) end = code.lastIndexOf('\n', limit);
    end = end <= start ? limit : end + 1;
    result.push(code.slice(start, end));
    start = end;
  }
  result.push(code.slice(start));
  return result;
}

interface HighlightJob {
  element: HTMLElement;
  language: string;
  code: string;
  parts: string[];
  html: string[];
  /** The text node holding the part not highlighted yet. */
  rest?: Text;
}

const jobs: HighlightJob[] = [];
let scheduled = false;

/**
 * Highlights `element` (a code element holding `code` as plain text) in short tasks, in idle
 * time: after the text of a reply that is catching up, not in its way. The text stays readable
 * throughout: each highlighted piece replaces its plain part in place.
 */
export function highlightLater(element: HTMLElement, code: string, language: string): void {
  jobs.push({ element, language, code, parts: pieces(code), html: [] });
  if (!scheduled) {
    scheduled = true;
    whenIdle(runJobs);
  }
}

function finish(job: HighlightJob): void {
  job.element.classList.remove(HIGHLIGHT_PENDING_CLASS);
  remember(`${job.language}\u0000${job.code}`, job.html.join(''));
}

/** One piece of one job; false when the job is done (or its element has gone). */
function step(job: HighlightJob, toFragment: (html: string) => DocumentFragment): boolean {
  // A live tail re-rendered since: nobody will see this element again.
  if (!job.element.isConnected) return false;
  if (!job.rest) {
    const rest = document.createTextNode(job.code);
    job.element.replaceChildren(rest);
    job.rest = rest;
  }
  const part = job.parts[job.html.length];
  const { html, dom } = highlightPieceDom(part, job.language);
  job.html.push(html);
  job.rest.before(dom ?? toFragment(html));
  job.rest.data = job.rest.data.slice(part.length);
  if (job.html.length < job.parts.length) return true;
  job.rest.remove();
  finish(job);
  return false;
}

let fragmentOf: (html: string) => DocumentFragment = () => document.createDocumentFragment();

/** How highlighted HTML becomes DOM (markdown.ts passes its sanitizer). */
export function setHighlightSanitizer(sanitize: (html: string) => DocumentFragment): void {
  fragmentOf = sanitize;
}

/** At least one piece per call (an idle callback that timed out has no time left at all). */
function runJobs(idle: { timeRemaining(): number }): void {
  const deadline = performance.now() + Math.min(SLICE_MS, idle.timeRemaining());
  do {
    const job = jobs[0];
    if (!job) break;
    if (!step(job, fragmentOf)) jobs.shift();
  } while (performance.now() < deadline);
  scheduled = jobs.length > 0;
  if (scheduled) whenIdle(runJobs);
}
