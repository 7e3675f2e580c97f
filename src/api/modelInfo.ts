/**
 * LiteLLM's `GET /model/info`: what each of its models can do and costs, where its `/v1/models`
 * says nothing but ids. Parsed here, at its one boundary, by type and bounded; never throws.
 */
import { isRecord } from './json';
import { MAX_USD } from './types';

export interface ModelInfoEntry {
  /** The id the gateway takes (LiteLLM's `model_name`). */
  id: string;
  /** `chat`, `image_generation`, `embedding`, … as the gateway says. */
  mode?: string;
  tools?: boolean;
  vision?: boolean;
  /** USD per token. */
  inputCostPerToken?: number;
  outputCostPerToken?: number;
  maxInputTokens?: number;
}

const MAX_ENTRIES = 2000;
const MAX_ID_CHARS = 200;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export function parseModelInfo(body: unknown): ModelInfoEntry[] {
  const data = isRecord(body) ? body.data : undefined;
  if (!Array.isArray(data)) return [];
  const out: ModelInfoEntry[] = [];
  const seen = new Set<string>();
  for (const item of data.slice(0, MAX_ENTRIES)) {
    if (!isRecord(item)) continue;
    const id = item.model_name;
    if (typeof id !== 'string' || !id.trim() || id.length > MAX_ID_CHARS || CONTROL.test(id) || seen.has(id))
      continue;
    seen.add(id);
    const info = isRecord(item.model_info) ? item.model_info : {};
    const entry: ModelInfoEntry = { id };
    if (typeof info.mode === 'string' && info.mode.length <= 40 && !CONTROL.test(info.mode))
      entry.mode = info.mode;
    if (typeof info.supports_function_calling === 'boolean') entry.tools = info.supports_function_calling;
    if (typeof info.supports_vision === 'boolean') entry.vision = info.supports_vision;
    const price = (value: unknown) =>
      typeof value === 'number' && Number.isFinite(value) && value >= 0 && value < MAX_USD
        ? value
        : undefined;
    const input = price(info.input_cost_per_token);
    if (input !== undefined) entry.inputCostPerToken = input;
    const output = price(info.output_cost_per_token);
    if (output !== undefined) entry.outputCostPerToken = output;
    const tokens = info.max_input_tokens;
    if (typeof tokens === 'number' && Number.isInteger(tokens) && tokens > 0 && tokens < 1e9)
      entry.maxInputTokens = tokens;
    out.push(entry);
  }
  return out;
}
