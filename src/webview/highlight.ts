/**
 * Syntax highlighting with highlight.js core and a chosen set of common languages (the full build
 * would triple the bundle). Unknown languages stay plain: automatic detection is slow and often
 * wrong on short snippets.
 */
import { escapeHtml } from '../core/util/text';
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

/** Highlighted HTML for `code`, or the escaped text when the language is unknown. */
export function highlightCode(code: string, language: string): string {
  if (!language || !hljs.getLanguage(language)) return escapeHtml(code);
  const key = `${language}\u0000${code}`;
  const cached = recentResults.get(key);
  if (cached !== undefined) return cached;
  let html: string;
  try {
    html = hljs.highlight(code, { language, ignoreIllegals: true }).value;
  } catch {
    html = escapeHtml(code);
  }
  recentResults.set(key, html);
  if (recentResults.size > RECENT_LIMIT) {
    const oldest = recentResults.keys().next().value;
    if (oldest !== undefined) recentResults.delete(oldest);
  }
  return html;
}
