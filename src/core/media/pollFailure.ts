/** What a failed status check means for the job: sorts errors into the poller's few reactions. */

import { GatewayError } from '../../api/errors';

export type PollFailure =
  /** 404: the gateway does not know the job. Final. */
  | { kind: 'notFound' }
  /** The key is rejected or lacks rights, or none is set: asking again will not help until the user acts. */
  | { kind: 'needsUser'; problem: string }
  /** 429: the gateway wants fewer requests, maybe saying for how long. */
  | { kind: 'rateLimited'; label: string; retryAfterSeconds?: number }
  /** 5xx, network, timeout, garbled answer: likely to pass. */
  | { kind: 'transient'; label: string }
  /** Another 4xx: unlikely to pass soon, so checked only rarely. */
  | { kind: 'refused'; label: string };

const PAUSED = 'polling paused until you refresh';

export function classifyPollFailure(error: unknown): PollFailure {
  if (!GatewayError.is(error)) {
    const message = error instanceof Error ? error.message : String(error);
    return { kind: 'transient', label: `Status check failed (${message})` };
  }
  const status = error.status;
  switch (error.kind) {
    case 'http':
      if (status === 404) return { kind: 'notFound' };
      if (status === 401)
        return { kind: 'needsUser', problem: `The gateway rejected the API key (401); ${PAUSED}` };
      if (status === 403)
        return { kind: 'needsUser', problem: `The API key may not read this job (403); ${PAUSED}` };
      if (status === 429) {
        const failure: PollFailure = { kind: 'rateLimited', label: 'Gateway busy (429)' };
        if (error.retryAfter !== undefined && Number.isFinite(error.retryAfter)) {
          failure.retryAfterSeconds = error.retryAfter;
        }
        return failure;
      }
      if (error.retryable || status === undefined) {
        return { kind: 'transient', label: `Gateway error (${status ?? 'HTTP'})` };
      }
      return { kind: 'refused', label: `The gateway refused the status check (${status})` };
    case 'config':
      return { kind: 'needsUser', problem: `${error.message.replace(/\.$/, '')}; ${PAUSED}` };
    case 'network':
      return { kind: 'transient', label: 'Cannot reach the gateway' };
    case 'timeout':
      return { kind: 'transient', label: 'The gateway did not answer in time' };
    case 'invalid_response':
      return { kind: 'transient', label: 'Unexpected answer from the gateway' };
    default:
      // 'stream' cannot happen for a status check; 'aborted' means someone else cancelled it.
      return { kind: 'transient', label: 'Status check interrupted' };
  }
}
