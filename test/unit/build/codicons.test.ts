/**
 * The codicon font and stylesheet ship cut down to the icons the webviews name
 * (build/codicons.mjs). An icon dropped by mistake would show as a blank box, so every icon the
 * webview code asks for by name, found here by a second, narrower reading of the sources, must be
 * in the built stylesheet, and its code point in the built font.
 */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../../launch/paths';

interface CodiconsModule {
  iconRules(css: string): { name: string; codePoint: number }[];
  namedIn(text: string): Set<string>;
  subsetStylesheet(css: string, keep: Set<string>): string;
}

const builtCss = path.join(repoRoot, 'dist', 'codicons', 'codicon.css');
const builtFont = path.join(repoRoot, 'dist', 'codicons', 'codicon.ttf');
const fullCss = path.join(repoRoot, 'node_modules', '@vscode', 'codicons', 'dist', 'codicon.css');

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sourcesUnder(full) : full.endsWith('.ts') ? [full] : [];
  });
}

/** Names the webviews pass to codicon(), as button icons, or in their kind → icon tables. */
function iconsAskedFor(): Set<string> {
  const asked = new Set<string>();
  for (const file of sourcesUnder(path.join(repoRoot, 'src', 'webview'))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/codicon\('([a-z0-9-]+)'/g)) asked.add(m[1]);
    for (const m of text.matchAll(/\bicon: '([a-z0-9-]+)'/g)) asked.add(m[1]);
    for (const table of text.matchAll(/KIND_ICONS[^=]*= \{([^}]*)\}/g)) {
      for (const m of table[1].matchAll(/: '([a-z0-9-]+)'/g)) asked.add(m[1]);
    }
  }
  return asked;
}

/** The code points a TrueType font maps, read from its cmap (formats 4 and 12). */
function mappedCodePoints(font: Buffer): Set<number> {
  const tables = font.readUInt16BE(4);
  let cmap = -1;
  for (let i = 0; i < tables; i++) {
    const record = 12 + i * 16;
    if (font.toString('latin1', record, record + 4) === 'cmap') cmap = font.readUInt32BE(record + 8);
  }
  assert.ok(cmap >= 0, 'the font has no cmap table');
  const points = new Set<number>();
  const subtables = font.readUInt16BE(cmap + 2);
  for (let i = 0; i < subtables; i++) {
    const at = cmap + font.readUInt32BE(cmap + 4 + i * 8 + 4);
    const format = font.readUInt16BE(at);
    if (format === 4) {
      const segments = font.readUInt16BE(at + 6) / 2;
      const ends = at + 14;
      const starts = ends + segments * 2 + 2;
      for (let s = 0; s < segments; s++) {
        const end = font.readUInt16BE(ends + s * 2);
        const start = font.readUInt16BE(starts + s * 2);
        if (start === 0xffff) continue;
        for (let c = start; c <= end; c++) points.add(c);
      }
    } else if (format === 12) {
      const groups = font.readUInt32BE(at + 12);
      for (let g = 0; g < groups; g++) {
        const start = font.readUInt32BE(at + 16 + g * 12);
        const end = font.readUInt32BE(at + 20 + g * 12);
        for (let c = start; c <= end; c++) points.add(c);
      }
    }
  }
  return points;
}

describe('the codicons that ship (build/codicons.mjs)', () => {
  let codicons: CodiconsModule;
  before(async () => {
    codicons = (await import(path.join(repoRoot, 'build', 'codicons.mjs'))) as CodiconsModule;
  });

  it('every icon the webviews ask for is in the built stylesheet, and its glyph in the built font', () => {
    const rules = codicons.iconRules(readFileSync(builtCss, 'utf8'));
    const shipped = new Map(rules.map((rule) => [rule.name, rule.codePoint]));
    const inFont = mappedCodePoints(readFileSync(builtFont));
    const asked = iconsAskedFor();
    assert.ok(asked.size >= 20, `only ${asked.size} icons found in the webview sources`);
    for (const name of asked) {
      assert.ok(shipped.has(name), `the webviews show "${name}", which the built stylesheet left out`);
      assert.ok(inFont.has(shipped.get(name)!), `the built font has no glyph for "${name}"`);
    }
  });

  it('leaves out the icons nobody names, and keeps the stylesheet’s font face and modifiers', () => {
    const full = readFileSync(fullCss, 'utf8');
    const built = readFileSync(builtCss, 'utf8');
    assert.ok(codicons.iconRules(built).length < codicons.iconRules(full).length / 5);
    for (const kept of ['@font-face', 'codicon-modifier-spin', "codicon[class*='codicon-']"])
      assert.ok(built.includes(kept), `the built stylesheet lost ${kept}`);
    assert.ok(statSync(builtFont).size < statSync(fullCss.replace(/\.css$/, '.ttf')).size / 5);
  });

  it('reads names from quoted literals and codicon- classes only', () => {
    const names = codicons.namedIn(
      `codicon('send'); x = "copy"; y = \`trash\`; .codicon-loading {} sendable warning`,
    );
    assert.deepEqual([...names].sort(), ['copy', 'loading', 'send', 'trash']);
    const css =
      '.codicon-send:before { content: "\\ea60" }\n.codicon-copy:before { content: "\\ea61" }\n.x {}';
    assert.equal(
      codicons.subsetStylesheet(css, new Set(['copy'])),
      '.codicon-copy:before { content: "\\ea61" }\n.x {}',
    );
  });
});
