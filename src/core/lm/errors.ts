/**
 * Any failure of a language-model request → the kind of `LanguageModelError` VS Code knows and a
 * message the user can act on (the client's messages already say what to do). Pure.
 */
import { GatewayError } from '../../api/errors';
import { plainText } from './modelInfo';

/** `LanguageModelError.NoPermissions` / `.Blocked` / `.NotFound`, or a plain one ('Unknown'). */
export type LmErrorCode = 'NoPermissions' | 'Blocked' | 'NotFound' | 'Unknown';

export interface LmFailure {
  code: LmErrorCode;
  message: string;
  /** The caller cancelled: not an error to report. */
  cancelled: boolean;
}

const MAX_MESSAGE = 600;

export function toLmFailure(error: unknown): LmFailure {
  const text = (message: string) => plainText(`Gateway AI: ${message}`, MAX_MESSAGE);
  if (!GatewayError.is(error)) {
    const cancelled = error instanceof Error && error.name === 'AbortError';
    return {
      code: 'Unknown',
      message: text(`Something went wrong: ${error instanceof Error ? error.message : String(error)}`),
      cancelled,
    };
  }
  if (error.kind === 'aborted') return { code: 'Unknown', message: text(error.message), cancelled: true };
  let code: LmErrorCode = 'Unknown';
  if (error.kind === 'config' && /key/i.test(error.message)) code = 'NoPermissions';
  if (error.kind === 'http') {
    if (error.status === 401 || error.status === 403) code = 'NoPermissions';
    else if (error.status === 404) code = 'NotFound';
    else if (error.status === 402 || error.status === 429) code = 'Blocked';
  }
  return { code, message: text(error.message), cancelled: false };
}
