import type { Conversation } from '../../../core/chat/conversation';
import {
  cleanPath,
  INSTRUCTION_TOKEN_BUDGET,
  selectInstructions,
} from '../../../core/instructions/instructionFiles';
import type { CarriedInstruction, InstructionFile } from '../../../core/instructions/instructionFiles';
import type { AssistantTurn, HostMessage } from '../../../core/protocol/chatProtocol';
import type { Logger } from '../../log/logger';

/** Where the workspace's instruction files come from (AGENTS.md, rules folders). */
export interface InstructionSource {
  load(): Promise<InstructionFile[]>;
  /** Paths the user turned off. */
  off(): Set<string>;
}

export interface TurnInstructions {
  carried: CarriedInstruction[];
  /** The set for the paths touched so far when it grew (the chips follow), else undefined. */
  carry(touched: string[]): CarriedInstruction[] | undefined;
}

/**
 * The instruction files of a turn: those that go with its first request (set on the turn as
 * chips), and `carry`, which gives the set for the paths touched so far when it grew (and
 * updates the chips), or undefined when it did not. `budget` is what is left of the instruction
 * budget once the chat's agent file has taken its part.
 */
export async function turnInstructions(
  source: InstructionSource | undefined,
  logger: Logger,
  conversation: Conversation,
  turn: AssistantTurn,
  post: (message: HostMessage) => void,
  budget = INSTRUCTION_TOKEN_BUDGET,
): Promise<TurnInstructions> {
  let files: InstructionFile[] = [];
  try {
    files = (await source?.load()) ?? [];
  } catch (error) {
    logger.warn(`Instruction files could not be read: ${String(error)}`);
  }
  const off = source?.off() ?? new Set<string>();
  const prompt = [...conversation.turns].reverse().find((t) => t.role === 'user');
  const attached = (prompt?.role === 'user' ? (prompt.attachments ?? []) : []).flatMap((a) =>
    a.path && (a.kind === 'file' || a.kind === 'selection')
      ? [cleanPath(a.path.replace(/:\d+-\d+$/, ''))]
      : [],
  );
  const show = (carried: CarriedInstruction[]) => {
    if (!carried.length) return;
    turn.instructions = carried.map(({ path, reason, tokens, cut, dropped }) => ({
      path,
      reason,
      tokens,
      ...(cut ? { cut } : {}),
      ...(dropped ? { dropped } : {}),
    }));
  };
  let carried = selectInstructions(files, attached, off, budget);
  show(carried);
  const key = (list: CarriedInstruction[]) => list.map((c) => c.path).join('\u0000');
  return {
    carried,
    carry: (touched) => {
      if (!files.length || !touched.length) return undefined;
      const next = selectInstructions(files, [...attached, ...touched], off, budget);
      if (key(next) === key(carried)) return undefined;
      carried = next;
      show(carried);
      post({ type: 'turnUpdated', turn });
      return carried;
    },
  };
}

/** Our system prompt, then the project's instructions below it. */
export function joinPrompt(system: string, instructions: string): string {
  return [system.trim() ? system : '', instructions].filter(Boolean).join('\n\n');
}
