import * as vscode from 'vscode';
import type { Conversation } from '../../../core/chat/conversation';
import type { PreparedCall, ToolSet } from '../../../core/agent/types';
import type { AssistantTurn, HostMessage, UserTurn } from '../../../core/protocol/chatProtocol';
import type { WorkspaceCheckpoints } from '../../agent/checkpoints/workspaceCheckpoints';
import type { Logger } from '../../log/logger';

/** The turn a guard protects, and where its prompt's checkpoint shows and is kept. */
export interface GuardedTurn {
  conversation: Conversation;
  turn: AssistantTurn;
  tools: ToolSet;
  post(message: HostMessage): void;
  save(): void;
}

/**
 * The turn's tools, with a snapshot of the workspace before the first change of each step: a
 * call that is not read-only waits for it (never longer than the time budget) before it runs.
 * The turn's first snapshot starts at once, beside the first request, and becomes the
 * prompt's checkpoint (*Restore to here*); a snapshot that cannot finish says so on the prompt.
 * `step` is set by the loop's events to the step that runs.
 */
export function checkpointGuard(
  checkpoints: WorkspaceCheckpoints | undefined,
  logger: Logger,
  run: GuardedTurn,
): { tools: ToolSet; step: number } {
  const tools = run.tools;
  const state = { tools, step: 0 };
  if (!checkpoints || !vscode.workspace.isTrusted || tools.specs().every((s) => s.readOnly)) return state;
  const index = run.conversation.turns.indexOf(run.turn);
  const prompt = run.conversation.turns
    .slice(0, index < 0 ? undefined : index)
    .reverse()
    .find((t): t is UserTurn => t.role === 'user');
  const record = (update: (p: UserTurn) => void) => {
    if (!prompt) return;
    update(prompt);
    run.post({ type: 'turnUpdated', turn: prompt });
    run.save();
  };
  let first: Promise<void> | undefined = checkpoints
    .take(`before the reply to ${prompt?.id ?? 'a prompt'}`)
    .then((outcome) =>
      record((p) => {
        if (outcome.ok) {
          p.checkpoint = outcome.id;
          delete p.checkpointNote;
          delete p.redoCheckpoint;
        } else p.checkpointNote = outcome.reason;
      }),
    );
  let guarded = -1;
  let pending: Promise<void> = Promise.resolve();
  const beforeChange = (): Promise<void> => {
    if (guarded === state.step) return pending;
    guarded = state.step;
    const step = state.step;
    const waitFor = first;
    first = undefined;
    pending = waitFor
      ? waitFor
      : checkpoints.take(`before step ${step + 1} of ${run.turn.id}`).then((outcome) => {
          if (!outcome.ok) logger.warn(`No checkpoint before step ${step + 1}: ${outcome.reason}`);
        });
    return pending;
  };
  state.tools = {
    specs: () => tools.specs(),
    prepare: async (name, args, signal): Promise<PreparedCall> => {
      const prepared = await tools.prepare(name, args, signal);
      if (tools.specs().find((s) => s.name === name)?.readOnly !== false) return prepared;
      return {
        ...prepared,
        run: async (runSignal, hold) => {
          await beforeChange();
          // Stopped while the snapshot ran: the change does not start (nor does a paid call cost).
          if (runSignal.aborted) {
            hold?.settle({ kind: 'notSent' });
            throw new Error('The turn was stopped.');
          }
          return prepared.run(runSignal, hold);
        },
      };
    },
  };
  return state;
}
