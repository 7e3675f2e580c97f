// The codicon font and stylesheet, cut down to the icons our webviews can name.
//
// @vscode/codicons ships some 650 icons: 126 KB of font and 34 KB of stylesheet, a sixth of the
// whole .vsix. The webviews use a few dozen. An icon is named in the source as a string literal
// ('send', KIND_ICONS values, `icon: 'copy'`) or as a class (`codicon-loading`), so the build keeps
// every icon whose name appears that way anywhere in src/webview or media/, and drops the rest.
// The match is generous on purpose (any literal that happens to be an icon name keeps that icon):
// an icon kept for nothing costs a few hundred bytes, one dropped by mistake shows as a blank box.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import subsetFont from 'subset-font';

/** Where an icon may be named: the webviews' code and every stylesheet that ships. */
export const ICON_SOURCES = ['src/webview', 'media'];

/** `.codicon-name:before { content: "\ea60" }`, one per line, as @vscode/codicons writes them. */
const ICON_RULE = /^\.codicon-([a-z0-9-]+):before\s*\{\s*content:\s*"\\([0-9a-f]+)"\s*\}\s*$/;

/** Each icon rule's name and code point, in the stylesheet's order. */
export function iconRules(css) {
  const rules = [];
  for (const line of css.split('\n')) {
    const match = ICON_RULE.exec(line);
    if (match) rules.push({ name: match[1], codePoint: Number.parseInt(match[2], 16) });
  }
  return rules;
}

/** Every word in `text` that could name an icon: quoted literals and `codicon-…` classes. */
export function namedIn(text) {
  const names = new Set();
  for (const match of text.matchAll(/['"`]([a-z0-9]+(?:-[a-z0-9]+)*)['"`]/g)) names.add(match[1]);
  for (const match of text.matchAll(/\bcodicon-([a-z0-9]+(?:-[a-z0-9]+)*)/g)) names.add(match[1]);
  return names;
}

/** The stylesheet with only the kept icons' rules; everything else in it (font face, modifiers) stays. */
export function subsetStylesheet(css, keep) {
  return css
    .split('\n')
    .filter((line) => {
      const match = ICON_RULE.exec(line);
      return !match || keep.has(match[1]);
    })
    .join('\n');
}

async function filesUnder(root, dir) {
  const entries = await readdir(path.join(root, dir), { withFileTypes: true });
  const files = await Promise.all(
    entries.map((entry) => {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) return filesUnder(root, relative);
      return /\.(ts|css|html)$/.test(entry.name) ? [relative] : [];
    }),
  );
  return files.flat();
}

/** The names of the icons the sources under `root` can show. */
export async function usedIconNames(root, css) {
  const named = new Set();
  for (const dir of ICON_SOURCES) {
    for (const file of await filesUnder(root, dir)) {
      for (const name of namedIn(await readFile(path.join(root, file), 'utf8'))) named.add(name);
    }
  }
  return new Set(
    iconRules(css)
      .map((rule) => rule.name)
      .filter((name) => named.has(name)),
  );
}

/** Writes the cut-down stylesheet and font; returns the names kept. */
export async function writeCodiconSubset({ root, cssFrom, fontFrom, cssTo, fontTo }) {
  const css = await readFile(cssFrom, 'utf8');
  const keep = await usedIconNames(root, css);
  const codePoints = iconRules(css)
    .filter((rule) => keep.has(rule.name))
    .map((rule) => rule.codePoint);
  const font = await subsetFont(await readFile(fontFrom), String.fromCodePoint(...codePoints), {
    targetFormat: 'truetype',
  });
  await Promise.all([writeFile(cssTo, subsetStylesheet(css, keep)), writeFile(fontTo, font)]);
  return keep;
}
