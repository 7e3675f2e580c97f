/**
 * How long rendering may keep the main thread: until about FRAME_WORK_MS of the current frame
 * are used (the browser needs the rest of the 16.7 ms for style, layout and paint), and not a
 * moment longer once the user does something. Where the page can tell that input is waiting
 * (`navigator.scheduling.isInputPending`), rendering stops at once; otherwise an input listener
 * notes each key, click, wheel or touch, and for a while after one the slices stay short.
 */

/** Main-thread time rendering may use in one frame, counted from the frame's start. */
export const FRAME_WORK_MS = 12;
/** The least a slice gets, however late in the frame it starts, so rendering always advances. */
export const MIN_SLICE_MS = 4;
/** Slices while the user is typing, clicking or scrolling... */
const AFTER_INPUT_SLICE_MS = 3;
/** ...that is, within this long of their last input. */
const INPUT_QUIET_MS = 250;

interface Scheduling {
  isInputPending?: (options?: { includeContinuous?: boolean }) => boolean;
}

let lastInputAt = -Infinity;
let watching = false;

/** Notes the user's input on `target` (the page), to shorten slices after it. Idempotent. */
export function watchInput(target: EventTarget): void {
  if (watching) return;
  watching = true;
  const note = (): void => {
    lastInputAt = performance.now();
  };
  for (const type of ['keydown', 'pointerdown', 'wheel', 'touchstart'])
    target.addEventListener(type, note, { capture: true, passive: true });
}

function scheduling(): Scheduling | undefined {
  return (navigator as unknown as { scheduling?: Scheduling }).scheduling;
}

/** Whether input is waiting to be handled (false where the browser cannot tell). */
export function inputPending(): boolean {
  try {
    return scheduling()?.isInputPending?.() ?? false;
  } catch {
    return false;
  }
}

/**
 * The deadline for rendering that starts now, in a frame that began at `frameStart` (a
 * `requestAnimationFrame` timestamp): FRAME_WORK_MS into the frame, but at least MIN_SLICE_MS
 * from now; short after recent input.
 */
export function sliceDeadline(frameStart = performance.now()): number {
  const now = performance.now();
  if (now - lastInputAt < INPUT_QUIET_MS) return now + AFTER_INPUT_SLICE_MS;
  return Math.max(frameStart + FRAME_WORK_MS, now + MIN_SLICE_MS);
}

/** Whether work with `deadline` should give the main thread back now. */
export function mustYield(deadline: number): boolean {
  return performance.now() >= deadline || inputPending();
}
