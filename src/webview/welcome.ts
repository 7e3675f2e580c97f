/** What an empty chat shows: how to get started, or, without an API key, how to set one. */
import { codicon, h, iconButton } from './dom';
import { postToHost } from './vscodeApi';

function explainShortcut(): string {
  return /Mac/i.test(navigator.platform) ? '⌘⌥E' : 'Ctrl+Alt+E';
}

export function welcomeView(hasApiKey: boolean): HTMLElement {
  const title = h(
    'h2',
    { className: 'welcome-title' },
    codicon('sparkle'),
    h('span', { text: 'Gateway AI' }),
  );
  if (!hasApiKey) {
    const setKey = iconButton({
      icon: 'key',
      label: 'Set API Key',
      text: 'Set API Key',
      className: 'primary-button',
    });
    setKey.addEventListener('click', () => postToHost({ type: 'setApiKey' }));
    return h(
      'div',
      { className: 'welcome' },
      title,
      h('p', {
        text: 'Chat with the models of your OpenRouter-style AI gateway, using your own API key.',
      }),
      h('p', { text: "The key is kept in VS Code's secret storage and sent only to the gateway." }),
      setKey,
    );
  }
  return h(
    'div',
    { className: 'welcome' },
    title,
    h('p', { text: 'Ask anything: replies stream in as they are written.' }),
    h(
      'p',
      { className: 'welcome-hint' },
      codicon('lightbulb'),
      h('span', {
        text: `Select code in an editor and run Explain Selection (${explainShortcut()}) to ask about it.`,
      }),
    ),
  );
}
