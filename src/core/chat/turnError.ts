/** Turns any failure of a chat request into words and buttons a user can act on. Pure. */
import { GatewayError } from '../../api/errors';
import type { ErrorAction, TurnError } from '../protocol/chatProtocol';

export function toTurnError(error: unknown): TurnError {
  if (!GatewayError.is(error)) {
    return {
      message: `Something went wrong: ${error instanceof Error ? error.message : String(error)}`,
      actions: ['retry'],
    };
  }
  const actions: ErrorAction[] = [];
  switch (error.kind) {
    case 'config':
      actions.push(/key/i.test(error.message) ? 'setApiKey' : 'openSettings');
      actions.push('retry');
      break;
    case 'http':
      if (error.status === 401) actions.push('setApiKey');
      else if (error.status === 402) actions.push('addCredits', 'selectModel');
      else if (error.status === 403 || error.status === 404) actions.push('selectModel');
      else if (error.status === 400) actions.push('openSettings');
      actions.push('retry');
      break;
    default:
      actions.push('retry');
  }
  return {
    message: error.message,
    status: error.status,
    provider: error.provider,
    retryAfter: error.retryAfter,
    actions,
  };
}

export function isAbort(error: unknown): boolean {
  return (
    (GatewayError.is(error) && error.kind === 'aborted') ||
    (error instanceof Error && error.name === 'AbortError')
  );
}
