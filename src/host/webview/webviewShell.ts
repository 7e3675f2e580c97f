/**
 * The chat webview's HTML document. Pure string building (plus a nonce from Node's crypto), so the
 * host can use it and tests can serve the same page from a plain HTTP server.
 *
 * Security: the Content-Security-Policy allows nothing remote. Scripts run only with the nonce
 * (no inline handlers, no eval); styles, fonts and images come only from the extension's own
 * resources (`cspSource`), plus `data:` images for inline pictures a model may return.
 */
import { randomBytes } from 'crypto';

export interface ChatHtmlOptions {
  /** `webview.cspSource`: the origin the webview loads the extension's resources from. */
  cspSource: string;
  /** A fresh value per page load, see `createNonce`. */
  nonce: string;
  /** URI of the webview bundle (`dist/webview.js`). */
  scriptUri: string;
  /** URI of the chat stylesheet (`media/chat.css`). */
  styleUri: string;
  /** URI of the codicon stylesheet (`dist/codicons/codicon.css`); the font sits beside it. */
  codiconUri: string;
}

/** 128 random bits, base64: unguessable per page load, which is what makes the script nonce safe. */
export function createNonce(): string {
  return randomBytes(16).toString('base64');
}

function escapeAttribute(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
}

export function renderChatHtml(options: ChatHtmlOptions): string {
  const csp = escapeAttribute(contentSecurityPolicy(options.cspSource, options.nonce));
  const nonce = escapeAttribute(options.nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeAttribute(options.codiconUri)}" id="vscode-codicon-stylesheet">
<link rel="stylesheet" href="${escapeAttribute(options.styleUri)}">
<title>Gateway AI Chat</title>
</head>
<body>
<div id="app"></div>
<script nonce="${nonce}" src="${escapeAttribute(options.scriptUri)}"></script>
</body>
</html>
`;
}
