/**
 * What a sent turn carried, and whether it is still sent: the attachment chips under a user's
 * prompt (kind icon, name, size), and the note on turns left out of requests to fit the model's
 * context, with a way to include them again. Names are the user's own files, shown as text.
 */
import { formatBytes } from '../core/chat/attachments';
import type { Attachment } from '../core/chat/attachments';
import type { InstructionChip } from '../core/protocol/chatProtocol';
import { codicon, h, iconButton } from './dom';
import { KIND_ICONS } from './attachments';
import { postToHost } from './vscodeApi';

const KIND_LABELS: Record<Attachment['kind'], string> = {
  selection: 'Selection',
  file: 'File',
  problems: 'Problems',
  image: 'Image',
  pdf: 'PDF',
};

/** The chips of what a sent prompt carried; undefined when it carried nothing. */
export function sentAttachmentsView(attachments: readonly Attachment[] | undefined): HTMLElement | undefined {
  if (!attachments?.length) return undefined;
  return h(
    'div',
    { className: 'sent-attachments', attrs: { role: 'list', 'aria-label': 'Sent with this message' } },
    ...attachments.map((attachment) =>
      h(
        'span',
        {
          className: `attachment-chip sent-chip kind-${attachment.kind}`,
          attrs: {
            role: 'listitem',
            title: `${KIND_LABELS[attachment.kind]}: ${attachment.name}, ${formatBytes(attachment.bytes)}`,
          },
        },
        codicon(KIND_ICONS[attachment.kind] ?? 'file'),
        h('span', { className: 'chip-name', text: attachment.name }),
        h('span', { className: 'chip-size', text: formatBytes(attachment.bytes) }),
      ),
    ),
  );
}

/** The project instruction files a reply carried (AGENTS.md, rules), as chips; undefined for none. */
export function instructionsView(chips: readonly InstructionChip[] | undefined): HTMLElement | undefined {
  if (!chips?.length) return undefined;
  return h(
    'div',
    {
      className: 'sent-attachments sent-instructions',
      attrs: { role: 'list', 'aria-label': 'Project instructions sent with this reply' },
    },
    ...chips.map((chip) => {
      const name = chip.path.slice(chip.path.lastIndexOf('/') + 1) || chip.path;
      const why = chip.reason === 'always' ? 'always sent' : 'sent because a file it applies to was used';
      const size = chip.dropped ? 'left out' : chip.cut ? `~${chip.tokens} tok, cut` : `~${chip.tokens} tok`;
      const note = chip.dropped
        ? ': left out, over the instruction files’ token budget'
        : chip.cut
          ? ': cut, over the instruction files’ token budget'
          : '';
      return h(
        'span',
        {
          className: `attachment-chip sent-chip kind-instructions${chip.dropped ? ' is-dropped' : ''}`,
          attrs: { role: 'listitem', title: `Project instructions: ${chip.path} (${why})${note}` },
        },
        codicon(chip.reason === 'always' ? 'book' : 'filter'),
        h('span', { className: 'chip-name', text: name }),
        h('span', { className: 'chip-size', text: size }),
      );
    }),
  );
}

/** The note on a turn left out of requests; undefined for a turn that is sent. */
export function leftOutNote(leftOut: boolean | undefined): HTMLElement | undefined {
  if (!leftOut) return undefined;
  const include = iconButton({
    icon: 'eye',
    label: 'Send the left-out turns again',
    text: 'Include again',
    className: 'include-again',
  });
  include.addEventListener('click', () => postToHost({ type: 'includeLeftOutTurns' }));
  return h(
    'div',
    { className: 'left-out-note' },
    codicon('eye-closed'),
    h('span', { text: "Left out of what is sent, to fit the model's context." }),
    include,
  );
}

/** Shows (or clears) a turn's context parts in `slot`, and marks the turn left out or not. */
export function renderTurnContext(
  turnElement: HTMLElement,
  slot: HTMLElement,
  turn: { leftOut?: boolean; attachments?: readonly Attachment[]; instructions?: readonly InstructionChip[] },
): void {
  turnElement.classList.toggle('is-left-out', !!turn.leftOut);
  const parts = [
    instructionsView(turn.instructions),
    sentAttachmentsView(turn.attachments),
    leftOutNote(turn.leftOut),
  ];
  slot.replaceChildren(...parts.filter((part): part is HTMLElement => part !== undefined));
}
