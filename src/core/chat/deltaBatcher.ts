import type { HostMessage } from '../protocol/chatProtocol';

/**
 * Merges streamed text in the host and posts it at most once per frame (~16 ms), so a fast
 * stream costs the webview one message per frame instead of one per token.
 */
export class DeltaBatcher {
  private content = '';
  private reasoning = '';
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly turnId: string,
    private readonly post: (message: HostMessage) => void,
    private readonly frameMs = 16,
  ) {}

  add(part: { content?: string; reasoning?: string }): void {
    if (part.content) this.content += part.content;
    if (part.reasoning) this.reasoning += part.reasoning;
    this.timer ??= setTimeout(() => this.flush(), this.frameMs);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.content && !this.reasoning) return;
    const message: HostMessage = { type: 'turnDelta', id: this.turnId };
    if (this.content) message.content = this.content;
    if (this.reasoning) message.reasoning = this.reasoning;
    this.content = '';
    this.reasoning = '';
    this.post(message);
  }
}
