/**
 * Typed reads of one field of untrusted JSON. Absent and `null` read as absent without a word
 * (gateways write `null` for "none"); anything else of the wrong type reads as absent and is
 * reported once through the ProblemReporter.
 */
import { isRecord } from './json';
import type { JsonObject } from './json';
import type { ProblemReporter } from './problems';
import { MAX_TOKEN_COUNT, MAX_USD } from './types';

function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

export function readString(
  object: JsonObject,
  name: string,
  path: string,
  problems: ProblemReporter,
): string | undefined {
  const value = object[name];
  if (typeof value === 'string') return value;
  if (present(value)) problems.wrongType(`${path}.${name}`, 'a string', value);
  return undefined;
}

export function readRecord(
  object: JsonObject,
  name: string,
  path: string,
  problems: ProblemReporter,
): JsonObject | undefined {
  const value = object[name];
  if (isRecord(value)) return value;
  if (present(value)) problems.wrongType(`${path}.${name}`, 'an object', value);
  return undefined;
}

export function readArray(
  object: JsonObject,
  name: string,
  path: string,
  problems: ProblemReporter,
): readonly unknown[] | undefined {
  const value = object[name];
  if (Array.isArray(value)) return value as unknown[];
  if (present(value)) problems.wrongType(`${path}.${name}`, 'an array', value);
  return undefined;
}

/** A finite number, or (when `numericString`) a string holding one, such as a cost `"0.0012"`. */
export function readNumber(
  object: JsonObject,
  name: string,
  path: string,
  problems: ProblemReporter,
  {
    min = Number.NEGATIVE_INFINITY,
    max = Number.POSITIVE_INFINITY,
    integer = false,
    numericString = false,
  } = {},
): number | undefined {
  const value = object[name];
  let number: number | undefined;
  if (typeof value === 'number') number = value;
  else if (
    numericString &&
    typeof value === 'string' &&
    /^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i.test(value)
  )
    number = Number(value);
  if (
    number !== undefined &&
    Number.isFinite(number) &&
    number >= min &&
    number <= max &&
    (!integer || Number.isInteger(number))
  )
    return number;
  if (present(value))
    problems.wrongType(
      `${path}.${name}`,
      `a${integer ? 'n integer' : ' number'}${min === 0 ? ' ≥ 0' : ''}${max < Number.POSITIVE_INFINITY ? ` ≤ ${max}` : ''}${numericString ? ' (or numeric string)' : ''}`,
      value,
    );
  return undefined;
}

/** A token count: a non-negative integer up to MAX_TOKEN_COUNT. */
export function readCount(
  object: JsonObject,
  name: string,
  path: string,
  problems: ProblemReporter,
): number | undefined {
  return readNumber(object, name, path, problems, { min: 0, max: MAX_TOKEN_COUNT, integer: true });
}

export { MAX_USD };

/** A sum of money: a finite number (or numeric string) from 0 up to MAX_USD. */
export function readUsd(
  object: JsonObject,
  name: string,
  path: string,
  problems: ProblemReporter,
  { negative = false } = {},
): number | undefined {
  const value = readNumber(object, name, path, problems, {
    min: negative ? -MAX_USD : 0,
    numericString: true,
  });
  if (value === undefined) return undefined;
  if (Math.abs(value) <= MAX_USD) return value + 0;
  problems.wrongType(`${path}.${name}`, `a sum of at most ${MAX_USD}`, value);
  return undefined;
}
