/**
 * The webview shell: every page's Content-Security-Policy and nonce, and that every webview of the
 * extension is made through it, with command URIs off. The shell imports `vscode` for types only,
 * so its real code runs here in plain Node; the sources are read for who else makes a webview.
 */
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import {
  CHAT_PAGE,
  GALLERY_PAGE,
  createNonce,
  renderPage,
  webviewOptions,
} from '../../../src/host/webview/webviewShell';
import type { PageSpec } from '../../../src/host/webview/webviewShell';

const SRC = path.resolve(__dirname, '../../../../src');
const SHELL = path.join('host', 'webview', 'webviewShell.ts');
const CSP_SOURCE = 'https://file+.vscode-resource.vscode-cdn.net';

function sources(dir = SRC): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sources(full) : full.endsWith('.ts') ? [full] : [];
  });
}

/** A Uri as far as the shell uses one: its path, and `with` to change it. */
function fakeUri(uriPath: string): vscode.Uri {
  const uri = {
    path: uriPath,
    with: (change: { path?: string }) => fakeUri(change.path ?? uriPath),
  };
  return uri as unknown as vscode.Uri;
}

function render(spec: PageSpec, nonce = createNonce()): string {
  return renderPage(spec, { cspSource: CSP_SOURCE, nonce, resource: (file) => `${CSP_SOURCE}/ext/${file}` });
}

function directives(html: string): Map<string, string> {
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1];
  assert.ok(csp, 'a CSP meta tag');
  return new Map(
    csp.split(';').map((part) => {
      const [name, ...values] = part.trim().split(/\s+/);
      return [name, values.join(' ')];
    }),
  );
}

describe('webview shell: every page and every webview', () => {
  it("pages allow only the extension's own files and a per-load nonce: no inline code, nothing remote", () => {
    const preview: PageSpec = {
      title: 'Media: <img src=x onerror=alert(1)>',
      scripts: ['dist/mediaPreview.js'],
      styles: ['media/mediaPreview.css'],
      body: '<p>body</p>',
      media: true,
    };
    for (const spec of [CHAT_PAGE, GALLERY_PAGE, preview]) {
      const nonce = createNonce();
      const html = render(spec, nonce);
      const csp = directives(html);
      assert.deepEqual(Object.fromEntries(csp), {
        'default-src': "'none'",
        'img-src': `${CSP_SOURCE} data:`,
        ...(spec.media ? { 'media-src': CSP_SOURCE } : {}),
        'style-src': CSP_SOURCE,
        'font-src': CSP_SOURCE,
        'script-src': `'nonce-${nonce}'`,
      });
      // Every script is one of the page's bundles, loaded by file with the nonce; none is inline.
      const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
      assert.equal(scripts.length, spec.scripts.length, spec.title);
      for (const [, attributes, body] of scripts) {
        assert.ok(attributes.startsWith(` nonce="${nonce}" src="${CSP_SOURCE}/ext/dist/`), attributes);
        assert.equal(body, '');
      }
      // No inline style, handler or script URL in any tag (text, such as the title, is escaped).
      assert.doesNotMatch(html, /<style|<[^>]*\s(style|on\w+)=|<[^>]*javascript:/i, spec.title);
      assert.ok(!html.includes('<img src=x'), 'the title is escaped');
    }
    // 128 random bits each time: a page loaded again gets a nonce nobody saw before.
    const nonces = new Set(Array.from({ length: 1000 }, createNonce));
    assert.equal(nonces.size, 1000);
    for (const nonce of nonces) assert.equal(Buffer.from(nonce, 'base64').length, 16);
  });

  it('webview options: scripts on, command URIs off, files only from dist/, media/ and the folders named', () => {
    const options = webviewOptions(fakeUri('/ext'), [fakeUri('/storage/media')]);
    assert.equal(options.enableCommandUris, false);
    assert.equal(options.enableScripts, true);
    assert.deepEqual(
      options.localResourceRoots?.map((root) => root.path),
      ['/ext/dist', '/ext/media', '/storage/media'],
    );
  });

  it('every webview the extension makes takes its options and its page from the shell', () => {
    const files = sources();
    // A panel is made by createWebviewPanel; a view's webview is handed to resolveWebviewView.
    const makers = files.filter((file) =>
      /createWebviewPanel\(|resolveWebviewView\(\s*\w+\s*:/.test(readFileSync(file, 'utf8')),
    );
    assert.ok(makers.length >= 3, `the chat view, the preview and the gallery: ${makers.join(', ')}`);
    for (const file of makers) {
      const text = readFileSync(file, 'utf8');
      const where = path.relative(SRC, file);
      assert.match(text, /\bwebviewOptions\(/, `${where} takes its options from the shell`);
      assert.match(text, /\bshowPage\(/, `${where} takes its page from the shell`);
      // A panel's options are the shell's, never an object of its own.
      for (const call of text.matchAll(/createWebviewPanel\(([\s\S]*?)\);/g))
        assert.match(call[1], /\bwebviewOptions\(/, `${where}: ${call[0].slice(0, 120)}`);
    }
    // Nobody else sets a page, or an option that the shell decides, so a spread cannot undo it.
    for (const file of files) {
      if (path.relative(SRC, file) === SHELL) continue;
      const text = readFileSync(file, 'utf8');
      const where = path.relative(SRC, file);
      assert.doesNotMatch(text, /\.html\s*=[^=]/, `${where} sets a webview's HTML itself`);
      assert.doesNotMatch(text, /enableCommandUris|enableScripts|localResourceRoots/, where);
    }
  });
});
