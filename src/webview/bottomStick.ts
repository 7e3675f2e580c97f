/**
 * Keeps a scroll container pinned to its bottom while content grows, until the user scrolls
 * away, and pins it again once they scroll back down.
 *
 * Not every scroll event is the user's: scroll anchoring and off-screen turns taking their real
 * height (content-visibility) move the position too. Those must not unpin the view, so a
 * scroll away from the bottom counts only right after a wheel, touch, key or pointer input;
 * otherwise the view is put back at the bottom.
 */

/** Closer than this to the bottom counts as "at the bottom" (zoom and rounding). */
const BOTTOM_SLACK_PX = 24;
/** How long after an input a scroll is attributed to it. */
const INPUT_ATTRIBUTION_MS = 600;
const SCROLL_KEYS = new Set(['PageUp', 'PageDown', 'ArrowUp', 'ArrowDown', 'Home', 'End', ' ', 'Tab']);

export class BottomStick {
  private pinned = true;
  private userInputUntil = 0;
  private pointerHeld = false;

  constructor(
    private readonly scroller: HTMLElement,
    content: HTMLElement,
    private readonly pinnedChanged: (pinned: boolean) => void,
  ) {
    const noteInput = (): void => {
      this.userInputUntil = performance.now() + INPUT_ATTRIBUTION_MS;
    };
    scroller.addEventListener('wheel', noteInput, { passive: true });
    scroller.addEventListener('touchmove', noteInput, { passive: true });
    scroller.addEventListener('keydown', (event) => {
      if (SCROLL_KEYS.has(event.key)) noteInput();
    });
    // Dragging the scroll bar: the whole drag is the user's.
    scroller.addEventListener('pointerdown', () => {
      this.pointerHeld = true;
    });
    window.addEventListener('pointerup', () => {
      this.pointerHeld = false;
      noteInput();
    });
    scroller.addEventListener('scroll', () => this.onScroll(), { passive: true });
    // Growth of the content or a smaller view (the composer growing) keeps a pinned view pinned.
    const keepPinned = new ResizeObserver(() => {
      if (this.pinned) this.scrollToBottom();
    });
    keepPinned.observe(scroller);
    keepPinned.observe(content);
    scroller.classList.add('is-pinned');
  }

  get isPinned(): boolean {
    return this.pinned;
  }

  /** Pins the view and scrolls to the bottom (a new prompt, or the "latest" button). */
  pin(): void {
    this.setPinned(true);
    this.scrollToBottom();
  }

  /** Scrolls to the bottom if pinned; called after each rendered frame. */
  follow(): void {
    if (this.pinned) this.scrollToBottom();
  }

  private scrollToBottom(): void {
    this.scroller.scrollTop = this.scroller.scrollHeight;
  }

  private onScroll(): void {
    const distance = this.scroller.scrollHeight - this.scroller.scrollTop - this.scroller.clientHeight;
    if (distance <= BOTTOM_SLACK_PX) this.setPinned(true);
    else if (this.pointerHeld || performance.now() < this.userInputUntil) this.setPinned(false);
    else if (this.pinned) this.scrollToBottom();
  }

  private setPinned(pinned: boolean): void {
    if (pinned === this.pinned) return;
    this.pinned = pinned;
    this.scroller.classList.toggle('is-pinned', pinned);
    this.pinnedChanged(pinned);
  }
}
