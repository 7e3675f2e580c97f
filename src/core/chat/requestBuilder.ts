/** Builds the chat request from the settings. Pure: unit-tested without VS Code. */
import type { ChatMessage, ChatRequest } from '../../api/types';
import type { GatewaySettings } from '../config/settingsModel';

export function buildChatRequest(
  chat: GatewaySettings['chat'],
  model: string,
  messages: ChatMessage[],
): ChatRequest {
  const request: ChatRequest = { model, messages, stream: true };
  if (chat.temperature !== undefined) request.temperature = chat.temperature;
  if (chat.maxTokens !== undefined) request.max_tokens = chat.maxTokens;
  if (chat.reasoningEffort === 'none') request.reasoning = { enabled: false };
  else if (chat.reasoningEffort !== 'default') request.reasoning = { effort: chat.reasoningEffort };
  if (chat.responseFormat === 'json_object') request.response_format = { type: 'json_object' };
  if (chat.provider) request.provider = chat.provider;
  const plugins = [...chat.plugins];
  if (chat.webSearch && !plugins.some((p) => p.id === 'web')) plugins.push({ id: 'web' });
  if (plugins.length > 0) request.plugins = plugins;
  if (chat.tools.length > 0) request.tools = chat.tools;
  return request;
}
