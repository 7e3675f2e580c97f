/**
 * Entry point of the chat webview: builds the view, applies what the host sends (validated with
 * `parseHostMessage`; anything else is ignored) and tells the host when it is ready.
 */
import { parseHostMessage } from '../core/protocol/chatProtocol';
import type { HostMessage } from '../core/protocol/chatProtocol';
import { AttachmentBar } from './attachments';
import { Composer } from './composer';
import { ContextMeter } from './contextMeter';
import { h } from './dom';
import { Header } from './header';
import { HistoryPanel } from './history';
import { Transcript } from './transcript';
import { postToHost } from './vscodeApi';

const composer = new Composer();
const attachments = new AttachmentBar(document.body);
const meter = new ContextMeter();
const history = new HistoryPanel(() => setHistoryOpen(false));
const header = new Header(() => setHistoryOpen(!history.isOpen));
const transcript = new Transcript({
  editTurn: (turnId, text) => composer.startEditing(turnId, text),
  streamingChanged: (streaming) => {
    composer.setStreaming(streaming);
    document.body.classList.toggle('is-streaming', streaming);
  },
  turnCountChanged: (count) => header.setCanExport(count > 0),
});

function setHistoryOpen(open: boolean): void {
  const wasOpen = history.isOpen;
  history.setOpen(open);
  header.setHistoryOpen(open);
  if (wasOpen && !open) header.historyButton.focus();
}

function apply(message: HostMessage): void {
  switch (message.type) {
    case 'init':
      header.setModel(message.model);
      history.setItems(message.history, message.conversation.id);
      transcript.setHasApiKey(message.hasApiKey);
      if (composer.isEditing) composer.cancelEditing();
      transcript.showConversation(message.conversation.turns);
      break;
    case 'turnAdded':
      transcript.addTurn(message.turn);
      if (message.turn.role === 'user') composer.userTurnAdded();
      break;
    case 'turnDelta':
      transcript.appendDelta(message.id, message.content, message.reasoning);
      break;
    case 'turnUpdated':
      transcript.updateTurn(message.turn);
      break;
    case 'turnsRemoved':
      transcript.removeTurns(message.ids);
      break;
    case 'model':
      header.setModel(message.model);
      break;
    case 'apiKey':
      transcript.setHasApiKey(message.hasApiKey);
      break;
    case 'history':
      history.setItems(message.items);
      break;
    case 'setComposer':
      composer.setText(message.text);
      break;
    case 'focusComposer':
      composer.focus();
      break;
    case 'context':
      attachments.render(message.attachments);
      attachments.setAcceptsImages(message.acceptsImages);
      meter.update(message);
      break;
  }
}

window.addEventListener('message', (event: MessageEvent) => {
  const message = parseHostMessage(event.data);
  if (message) apply(message);
});

// Escape backs out of the innermost thing going on: the history list, an edit, a streaming reply.
document.addEventListener('keydown', (event) => {
  if (event.key !== 'Escape' || event.isComposing) return;
  if (history.isOpen) setHistoryOpen(false);
  else if (composer.isEditing) composer.cancelEditing();
  else if (document.body.classList.contains('is-streaming')) postToHost({ type: 'stop' });
  else return;
  event.preventDefault();
});

const app = document.getElementById('app') ?? document.body.appendChild(h('div', { attrs: { id: 'app' } }));
header.element.insertBefore(meter.element, header.element.lastElementChild);
composer.element.prepend(attachments.element);
composer.element.querySelector('.composer-box')?.prepend(attachments.addButton);
app.append(
  header.element,
  h('div', { className: 'chat-body' }, transcript.element, history.element),
  composer.element,
);
postToHost({ type: 'ready' });
