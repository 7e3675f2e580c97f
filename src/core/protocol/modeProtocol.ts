/**
 * The mode picker's part of the chat protocol: the modes a chat may use (Agent, Plan, Ask and the
 * workspace's custom agents) and the one chosen, and the picker's and the plan hand-off's intents.
 * Parsed by type here, once, for both sides.
 */
import { isRecord } from '../../api/json';
import { shownText } from '../agent/agentFiles';
import { isBuiltinMode, isModeId } from '../agent/modes';
import { isId } from './protocolFields';

const MAX_OPTIONS = 60;
const MAX_WARNINGS = 20;

/** One entry of the mode picker. */
export interface ModeOption {
  id: string;
  label: string;
  description: string;
  /** A custom agent from a workspace file (shown apart, with its path, and marked when chosen). */
  custom: boolean;
  /** What of its file could not be used (unknown tools, a bad header), shown as a warning. */
  warning?: string;
}

/** The picker's state for the open chat. */
export interface ModesState {
  current: string;
  options: ModeOption[];
  /** Problems reading the workspace's agent files as a whole (too many, unreadable, Restricted Mode). */
  warnings: string[];
}

export type ModeHostMessage = { type: 'modes' } & ModesState;

export type ModeWebviewMessage =
  /** The picker: this chat's mode from now on. */
  | { type: 'setMode'; mode: string }
  /** *Run in Agent* on a Plan answer: its plan goes to an Agent turn. */
  | { type: 'runPlan'; turnId: string };

function text(value: unknown, max: number): string {
  return typeof value === 'string' ? shownText(value, max) : '';
}

function parseOption(value: unknown): ModeOption | undefined {
  if (!isRecord(value) || !isModeId(value.id)) return undefined;
  const option: ModeOption = {
    id: value.id,
    label: text(value.label, 100) || value.id.slice(0, 100),
    description: text(value.description, 400),
    // Built-in or not is the id's to say (a workspace agent's starts with `custom:`), never a flag
    // or a name that came with it.
    custom: !isBuiltinMode(value.id),
  };
  const warning = text(value.warning, 1000);
  if (warning) option.warning = warning;
  return option;
}

export function parseModesState(value: Record<string, unknown>): ModesState | undefined {
  if (!isModeId(value.current) || !Array.isArray(value.options)) return undefined;
  const options = (value.options as unknown[])
    .slice(0, MAX_OPTIONS)
    .flatMap((o) => parseOption(o) ?? [])
    .filter((o, i, all) => all.findIndex((x) => x.id === o.id) === i);
  const warnings = Array.isArray(value.warnings)
    ? (value.warnings as unknown[])
        .slice(0, MAX_WARNINGS)
        .map((w) => text(w, 1000))
        .filter(Boolean)
    : [];
  return { current: value.current, options, warnings };
}

export function parseModeWebviewMessage(m: Record<string, unknown>): ModeWebviewMessage | undefined {
  switch (m.type) {
    case 'setMode':
      return isModeId(m.mode) ? { type: 'setMode', mode: m.mode } : undefined;
    case 'runPlan':
      return isId(m.turnId) ? { type: 'runPlan', turnId: m.turnId } : undefined;
    default:
      return undefined;
  }
}
