/** `vscode` message parts → the plain parts of src/core/lm (classified by class, then by shape). */
import * as vscode from 'vscode';
import type { LmMessage, LmPart, LmRole } from '../../core/lm/messages';
import type { LanguageModelChatRequestMessage } from './vscodeLmTypes';
import { newerClasses } from './vscodeLmTypes';

function bytes(value: unknown): Uint8Array | undefined {
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  return undefined;
}

export function toLmPart(part: unknown): LmPart {
  const { DataPart, ThinkingPart, PromptTsxPart } = newerClasses(vscode);
  // Reasoning of an earlier reply is not sent back: it would become text the model never wrote.
  if (ThinkingPart && part instanceof ThinkingPart) return { kind: 'other' };
  if (part instanceof vscode.LanguageModelTextPart) return { kind: 'text', value: part.value };
  if (part instanceof vscode.LanguageModelToolCallPart)
    return { kind: 'toolCall', callId: part.callId, name: part.name, input: part.input };
  if (part instanceof vscode.LanguageModelToolResultPart)
    return { kind: 'toolResult', callId: part.callId, content: part.content.map(toLmPart) };
  if (DataPart && part instanceof DataPart) {
    const data = bytes(part.data);
    return data ? { kind: 'data', mimeType: part.mimeType, data } : { kind: 'other' };
  }
  if (PromptTsxPart && part instanceof PromptTsxPart) {
    return {
      kind: 'text',
      value: typeof part.value === 'string' ? part.value : (JSON.stringify(part.value) ?? ''),
    };
  }
  return { kind: 'other' };
}

function role(value: vscode.LanguageModelChatMessageRole): LmRole {
  if (value === vscode.LanguageModelChatMessageRole.Assistant) return 'assistant';
  // 3 is `System` (proposed in VS Code's API; sent by its own chat).
  if ((value as number) === 3) return 'system';
  return 'user';
}

export function toLmMessage(message: LanguageModelChatRequestMessage): LmMessage {
  const content = Array.isArray(message.content) ? message.content : [];
  return { role: role(message.role), name: message.name, parts: content.map(toLmPart) };
}
