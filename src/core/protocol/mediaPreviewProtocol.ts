/**
 * Messages from the media preview webview to the host. The page only names which result a button
 * was for; the host looks the result up itself, so the page can never point it at another file.
 */
import { isRecord } from '../../api/json';

export type PreviewMessage = { type: 'save'; index: number } | { type: 'openSource'; index: number };

export function parsePreviewMessage(value: unknown): PreviewMessage | undefined {
  if (!isRecord(value)) return undefined;
  const { type, index } = value;
  if (
    (type === 'save' || type === 'openSource') &&
    typeof index === 'number' &&
    Number.isInteger(index) &&
    index >= 0
  ) {
    return { type, index };
  }
  return undefined;
}
