/** The media preview page: its buttons ask the host to save a result or open its source. */
import type { PreviewMessage } from '../core/protocol/mediaPreviewProtocol';

interface PreviewApi {
  postMessage(message: PreviewMessage): void;
}
declare function acquireVsCodeApi(): PreviewApi;

const api = acquireVsCodeApi();

document.addEventListener('click', (event) => {
  const button =
    event.target instanceof Element ? event.target.closest<HTMLElement>('button[data-action]') : null;
  const action = button?.dataset.action;
  const index = Number(button?.dataset.index);
  if ((action === 'save' || action === 'openSource') && Number.isInteger(index))
    api.postMessage({ type: action, index });
});
