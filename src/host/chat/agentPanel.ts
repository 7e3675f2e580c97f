import type { Conversation } from '../../core/chat/conversation';
import type { AgentWebviewMessage } from '../../core/protocol/agentProtocol';
import type { ChatAgent } from '../agent/chatAgent';
import type { Settings } from '../config/settings';
import type { ModelGate } from './turn/modelGate';
import type { TurnHost } from './turn/turnHost';

/** The chat view's agent parts: the tool cards' and the tool picker's intents, and the picker. */
export class AgentPanel {
  constructor(
    private readonly agent: ChatAgent,
    private readonly deps: {
      host: Pick<TurnHost, 'current' | 'post' | 'save' | 'busy'>;
      settings: Settings;
      models: ModelGate;
      /** The conversation open now, without loading one. */
      open(): Conversation | undefined;
      /** Removes the turns from `index` on. */
      removeFrom(conversation: Conversation, index: number): void;
    },
  ) {}

  /** The tool cards' and the tool picker's intents (approvals, diffs, undo, tool choices). */
  async message(message: AgentWebviewMessage): Promise<void> {
    const { host } = this.deps;
    // A decision is for the running turn: it must not wait for anything else.
    if (message.type === 'toolDecision' || message.type === 'agentPauseDecision') {
      const open = this.deps.open();
      if (open)
        return this.agent.handle(
          message,
          open,
          (m) => host.post(m),
          () => undefined,
        );
      return;
    }
    const conversation = await host.current();
    await this.agent.handle(
      message,
      conversation,
      (m) => host.post(m),
      () => void host.save(conversation, false),
      (turnId) => {
        const index = conversation.turns.findIndex((t) => t.id === turnId);
        if (index >= 0 && !host.busy()) this.deps.removeFrom(conversation, index + 1);
      },
    );
  }

  /** The tool picker follows the model, the chat, the sources and trust. */
  async postTools(): Promise<void> {
    const conversation = await this.deps.host.current();
    const support = await this.deps.models.toolSupport(this.deps.settings.current.chat.model);
    this.deps.host.post({ type: 'agentTools', ...this.agent.pickerState(conversation.id, support) });
  }
}
