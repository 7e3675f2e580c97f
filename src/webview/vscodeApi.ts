/**
 * The one bridge to the host. `acquireVsCodeApi` may be called only once per page, so it is
 * called here and nowhere else.
 */
import type { WebviewMessage } from '../core/protocol/chatProtocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): unknown;
}

declare function acquireVsCodeApi(): VsCodeApi;

const api = acquireVsCodeApi();

export function postToHost(message: WebviewMessage): void {
  api.postMessage(message);
}

/**
 * What survives the view being hidden and shown again. Only the unsent draft: conversations are
 * persisted by the host, and webview state is not a place for them.
 */
interface SavedViewState {
  draft: string;
}

export function loadDraft(): string {
  const state = api.getState();
  if (typeof state === 'object' && state !== null && typeof (state as SavedViewState).draft === 'string') {
    return (state as SavedViewState).draft;
  }
  return '';
}

export function saveDraft(draft: string): void {
  const state: SavedViewState = { draft };
  api.setState(state);
}
