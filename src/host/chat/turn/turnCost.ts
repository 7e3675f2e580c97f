import type { Conversation } from '../../../core/chat/conversation';
import { withEstimate, withGeneration, withSavings } from '../../../core/cost/replyCost';
import type { AssistantTurn } from '../../../core/protocol/chatProtocol';
import type { CatalogFeature } from '../../catalog/catalogFeature';
import type { CostTracker } from '../../cost/costTracker';
import type { ModelGate } from './modelGate';

/** Where a late cost shows: the turn is re-posted and saved when its chat is still there. */
export interface CostShown {
  isCurrent(conversation: Conversation): boolean;
  updated(turn: AssistantTurn): void;
  save(conversation: Conversation): void;
  postContext(): void;
  disposed(): boolean;
}

/**
 * A reply whose stream carried no cost: its generation record says, a few seconds later. The
 * turn shows it then, and today's total counts it, even if the turn was removed meanwhile. A
 * gateway without generation records leaves the turn's estimate (tokens × price), which today's
 * total then counts as estimated.
 */
export async function costFromGeneration(
  costs: CostTracker | undefined,
  models: ModelGate,
  shown: CostShown,
  conversation: Conversation,
  turn: AssistantTurn,
  ids: readonly string[],
  model: string,
): Promise<void> {
  if (!costs) return;
  const found = (await Promise.all(ids.map((id) => costs.generation(id)))).filter(
    (g): g is NonNullable<typeof g> => g !== undefined,
  );
  if (!found.length) {
    if (turn.usage?.estimatedCost !== undefined)
      costs.record('panel', turn.usage.estimatedCost, { estimated: true });
    return;
  }
  if (shown.disposed()) return;
  const before = turn.usage?.cost ?? 0;
  if (ids.length === 1 && turn.usage?.cost === undefined) {
    const pricing = models.pricing(model);
    turn.usage = withEstimate(withSavings(withGeneration(turn.usage, found[0]), pricing), pricing);
  } else {
    const extra = found.reduce((sum, g) => sum + (g.totalCost ?? 0), 0);
    turn.usage = { ...turn.usage, cost: before + extra };
  }
  if (turn.usage.cost !== undefined) delete turn.usage.estimatedCost;
  const added = (turn.usage.cost ?? 0) - before;
  if (added > 0) costs.record('panel', added);
  else if (turn.usage.cost === undefined && turn.usage.estimatedCost !== undefined)
    costs.record('panel', turn.usage.estimatedCost, { estimated: true });
  if (!conversation.turns.includes(turn)) return;
  if (shown.isCurrent(conversation)) shown.updated(turn);
  shown.save(conversation);
  shown.postContext();
}

/** A 402 says how much credit is left, where the gateway tells. */
export async function addCredit(catalog: CatalogFeature | undefined, turn: AssistantTurn): Promise<void> {
  const credit = await catalog?.credits.update(true).catch(() => undefined);
  const line = credit && catalog?.credits.describe();
  if (line && turn.error) turn.error.message += ` Remaining: ${line}.`;
}
