/** The one error type of the client. Its message never contains the API key. */

export type GatewayErrorKind =
  /** The gateway answered with an HTTP error status. */
  | 'http'
  /** The connection failed or was dropped. */
  | 'network'
  /** No answer within the timeout, or a stream stayed silent too long. */
  | 'timeout'
  /** The caller aborted. */
  | 'aborted'
  /** The gateway sent an error inside a stream that had started. */
  | 'stream'
  /** The answer was not what the interface promises (bad JSON, no id, ...). */
  | 'invalid_response'
  /** Nothing was sent: no key, an invalid base URL, ... */
  | 'config';

export interface GatewayErrorInit {
  kind: GatewayErrorKind;
  message: string;
  status?: number;
  provider?: string;
  code?: string | number;
  /** Seconds the gateway asked us to wait (Retry-After), when it said. */
  retryAfter?: number;
  /** A 402 because the balance is held by requests still running, not spent: worth a retry soon. */
  creditHeldInFlight?: boolean;
  cause?: unknown;
}

export class GatewayError extends Error {
  readonly kind: GatewayErrorKind;
  readonly status?: number;
  readonly provider?: string;
  readonly code?: string | number;
  readonly retryAfter?: number;
  readonly creditHeldInFlight?: boolean;

  constructor(init: GatewayErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'GatewayError';
    this.kind = init.kind;
    this.status = init.status;
    this.provider = init.provider;
    this.code = init.code;
    this.retryAfter = init.retryAfter;
    if (init.creditHeldInFlight) this.creditHeldInFlight = true;
  }

  /** Worth trying again later: connection errors, timeouts, 429 and 5xx. */
  get retryable(): boolean {
    if (this.kind === 'network' || this.kind === 'timeout') return true;
    if (this.kind === 'http' && this.status !== undefined) return this.status === 429 || this.status >= 500;
    return false;
  }

  /** One class at run time: the client and the host are one bundle. */
  static is(value: unknown): value is GatewayError {
    return value instanceof GatewayError;
  }
}
