/**
 * Entry point of the chat webview: builds the view, applies what the host sends (parsed by type
 * with `parseHostMessage`: a malformed message is dropped and reported on the console, never
 * applied half-way) and tells the host when it is ready.
 */
import { parseHostMessage } from '../core/protocol/chatProtocol';
import type { HostMessage } from '../core/protocol/chatProtocol';
import { AttachmentBar } from './attachments';
import { CompactionBlock } from './compactionBlock';
import { Composer } from './composer';
import { ContextMeter } from './contextMeter';
import { h } from './dom';
import { FileMention } from './fileMention';
import { Header } from './header';
import { HistoryPanel } from './history';
import { applyMediaJob } from './mediaCard';
import { ModelMenu } from './modelMenu';
import { ModePicker } from './modePicker';
import { QueuePanel } from './queuePanel';
import { warmUpRendering } from './rendererWarmup';
import { ToolPicker } from './toolPicker';
import { Transcript } from './transcript';
import { warmUpFonts } from './fontWarmup';
import { TrustNotice } from './trustNotice';
import { postToHost } from './vscodeApi';

const composer = new Composer();
const queue = new QueuePanel();
const attachments = new AttachmentBar(document.body);
const meter = new ContextMeter();
const history = new HistoryPanel(() => setHistoryOpen(false));
const header = new Header(() => setHistoryOpen(!history.isOpen));
const modelMenu = new ModelMenu();
const toolPicker = new ToolPicker();
const modePicker = new ModePicker();
const trustNotice = new TrustNotice();
const transcript = new Transcript({
  editTurn: (turnId, text) => composer.startEditing(turnId, text),
  streamingChanged: (streaming) => {
    composer.setStreaming(streaming);
    document.body.classList.toggle('is-streaming', streaming);
  },
  turnCountChanged: (count) => header.setCanExport(count > 0),
});

const compactionBlock = new CompactionBlock(
  transcript.element.querySelector<HTMLElement>('.turn-list') ?? transcript.element,
);

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
      if (message.turn.role === 'user') composer.promptAccepted();
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
    case 'workspaceTrust':
      trustNotice.setRestricted(message.restricted);
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
    case 'queue': {
      const grew = message.items.length > queue.count;
      queue.setItems(message.items);
      if (grew) composer.promptAccepted();
      break;
    }
    case 'fileSuggestions':
      mention?.show(message.query, message.files);
      break;
    case 'mediaJob':
      applyMediaJob(message.job);
      break;
    case 'composerNotice':
      composer.showNotice(message.message);
      break;
    case 'modelOptions':
      modelMenu.update(message);
      break;
    case 'context':
      attachments.render(message.attachments);
      attachments.setAcceptsImages(message.acceptsImages);
      meter.update(message);
      break;
    case 'compaction':
      compactionBlock.update(message.compaction);
      break;
    case 'agentStep':
      transcript.applyAgentStep(message.turnId, message.index, message.step, message.progress);
      break;
    case 'agentTools':
      toolPicker.update(message);
      break;
    case 'modes':
      modePicker.update(message);
      break;
    default: {
      const unhandled: never = message;
      void unhandled;
    }
  }
}

/** What a message looked like, for the console: its type and size, never its text. */
function describe(data: unknown): string {
  // Never String(x): an object whose toString is not a function throws (the fuzz test found one).
  const type =
    typeof data === 'object' && data !== null && 'type' in data && typeof data.type === 'string'
      ? data.type
      : typeof data;
  let size = 0;
  try {
    size = JSON.stringify(data)?.length ?? 0;
  } catch {
    // Not JSON: nothing the host would send.
  }
  return `"${type.slice(0, 40)}" (${size} characters)`;
}

window.addEventListener('message', (event: MessageEvent) => {
  const problems: string[] = [];
  const message = parseHostMessage(event.data, (path) => problems.push(path));
  if (!message) {
    console.warn(`Gateway AI: dropped a malformed message from the extension: ${describe(event.data)}`);
    return;
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).join(', ');
    const more = problems.length > 5 ? ` and ${problems.length - 5} more` : '';
    console.warn(`Gateway AI: ignored fields of the wrong type in "${message.type}": ${shown}${more}`);
  }
  try {
    apply(message);
    // A sent, queued or replaced prompt changes the draft without an input event.
    if (message.type !== 'turnDelta') meter.setDraft(input?.value ?? '');
  } catch (error) {
    // A bug in one view must not stop the next message from being applied.
    console.error(`Gateway AI: applying "${message.type}" failed:`, error);
  }
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
header.addModelControls(
  modePicker.element,
  modelMenu.effortSelect,
  modelMenu.toggleButton,
  toolPicker.toggleButton,
);
composer.element.prepend(meter.warning, attachments.element);
// The prompt being typed counts towards the meter's overflow warning.
const input = composer.element.querySelector<HTMLTextAreaElement>('.composer-input');
meter.setDraft(input?.value ?? '');
composer.element.addEventListener('input', () => meter.setDraft(input?.value ?? ''));
// `#file:` in the prompt offers workspace files to attach.
const mention = input ? new FileMention(input, composer.element) : undefined;
if (mention) composer.element.prepend(mention.element);
composer.element.querySelector('.composer-box')?.prepend(attachments.addButton);
app.append(
  header.element,
  modelMenu.panel,
  toolPicker.panel,
  trustNotice.element,
  h('div', { className: 'chat-body' }, transcript.element, history.element),
  queue.element,
  composer.element,
);
postToHost({ type: 'ready' });
warmUpFonts(transcript.element);
warmUpRendering();
