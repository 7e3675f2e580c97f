/**
 * The one shell for every webview of the extension (the chat view, the media preview, and any
 * later one): the nonce, the Content-Security-Policy, the HTML skeleton, escaping and resource
 * URIs. Pages differ only in their `PageSpec`: title, scripts, styles and body.
 *
 * Security: `default-src 'none'`. Scripts run only with the page's nonce (no inline handlers, no
 * eval), styles and fonts come only from the extension's own files (`cspSource`), images from
 * there or `data:`, and nothing remote loads. No page has inline styles or scripts: CSS lives in
 * files under media/, scripts are bundles under dist/.
 *
 * It imports `vscode` for types only, so the webview tests serve the very same page from a
 * plain HTTP server.
 */
import type * as vscode from 'vscode';
import { escapeHtml } from '../../core/util/text';
import { bytesToBase64 } from '../../api/base64';

export interface PageSpec {
  title: string;
  /** Scripts, relative to the extension's root (e.g. `dist/webview.js`), loaded with the nonce. */
  scripts: readonly string[];
  /** Stylesheets, relative to the extension's root. */
  styles: readonly string[];
  /** The body's HTML: the caller escapes any text it puts in. */
  body: string;
  /** Allows `<video>` and `<audio>` from the extension's resources. */
  media?: boolean;
}

export const CHAT_PAGE: PageSpec = {
  title: 'Gateway AI Chat',
  scripts: ['dist/webview.js'],
  styles: ['dist/codicons/codicon.css', 'media/chat.css'],
  body: '<div id="app"></div>',
  // Video and audio results play in the chat's media cards.
  media: true,
};

export const GALLERY_PAGE: PageSpec = {
  title: 'Media Gallery',
  scripts: ['dist/gallery.js'],
  styles: ['media/gallery.css'],
  body: '<div id="app"></div>',
  // A video's tile shows its first frame until its poster is cached.
  media: true,
};

/** The folders of the extension a page may load files from. */
export const PAGE_RESOURCE_FOLDERS: readonly string[] = ['dist', 'media'];

/** 128 random bits, base64: unguessable per page load, which is what makes the script nonce safe. */
export function createNonce(): string {
  return bytesToBase64(crypto.getRandomValues(new Uint8Array(16)));
}

export function contentSecurityPolicy(
  cspSource: string,
  nonce: string,
  options: { media?: boolean } = {},
): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    ...(options.media ? [`media-src ${cspSource}`] : []),
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
}

export interface RenderOptions {
  /** `webview.cspSource`: the origin the webview loads the extension's resources from. */
  cspSource: string;
  /** A fresh value per page load, see `createNonce`. */
  nonce: string;
  /** The URL a webview loads an extension file from, given its path relative to the root. */
  resource(relativePath: string): string;
}

/** The page's whole HTML document. */
export function renderPage(spec: PageSpec, options: RenderOptions): string {
  const attr = escapeHtml;
  const csp = contentSecurityPolicy(options.cspSource, options.nonce, { media: spec.media });
  const styles = spec.styles.map((style) => {
    // VS Code's webviews look for the codicon stylesheet by this id.
    const id = style.endsWith('codicon.css') ? ' id="vscode-codicon-stylesheet"' : '';
    return `<link rel="stylesheet" href="${attr(options.resource(style))}"${id}>`;
  });
  const scripts = spec.scripts.map(
    (script) => `<script nonce="${attr(options.nonce)}" src="${attr(options.resource(script))}"></script>`,
  );
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${styles.join('\n')}
<title>${escapeHtml(spec.title)}</title>
</head>
<body>
${spec.body}
${scripts.join('\n')}
</body>
</html>
`;
}

/** A file of the extension, as a Uri (without importing `vscode` at run time). */
export function extensionFile(extensionUri: vscode.Uri, relativePath: string): vscode.Uri {
  return extensionUri.with({ path: joinPath(extensionUri.path, relativePath) });
}

/** Webview options that allow scripts, no command URIs, and files only from `roots`. */
export function webviewOptions(
  extensionUri: vscode.Uri,
  extraRoots: readonly vscode.Uri[] = [],
): vscode.WebviewOptions {
  return {
    enableScripts: true,
    enableCommandUris: false,
    localResourceRoots: [
      ...PAGE_RESOURCE_FOLDERS.map((folder) => extensionFile(extensionUri, folder)),
      ...extraRoots,
    ],
  };
}

/** Sets a webview's page: a fresh nonce, the CSP, and resource URIs the webview may load. */
export function showPage(webview: vscode.Webview, extensionUri: vscode.Uri, spec: PageSpec): void {
  webview.html = renderPage(spec, {
    cspSource: webview.cspSource,
    nonce: createNonce(),
    resource: (relativePath) => webview.asWebviewUri(extensionFile(extensionUri, relativePath)).toString(),
  });
}

/** `base` and `relative` joined as URI paths, with `.` and `..` segments resolved (POSIX rules). */
function joinPath(base: string, relative: string): string {
  const parts: string[] = [];
  for (const segment of `${base}/${relative}`.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') parts.pop();
    else parts.push(segment);
  }
  return `/${parts.join('/')}`;
}
