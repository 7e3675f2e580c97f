/** Builds the chat request from the settings. Pure: unit-tested without VS Code. */
import type { ChatMessage, ChatRequest } from '../../api/types';
import type { GatewaySettings } from '../config/settingsModel';
import { reasoningFor } from '../lm/request';

export function buildChatRequest(
  chat: GatewaySettings['chat'],
  model: string,
  messages: ChatMessage[],
): ChatRequest {
  const request: ChatRequest = { model, messages, stream: true };
  if (chat.temperature !== undefined) request.temperature = chat.temperature;
  if (chat.maxTokens !== undefined) request.max_tokens = chat.maxTokens;
  const reasoning = reasoningFor(chat.reasoningEffort);
  if (reasoning !== undefined) request.reasoning = reasoning;
  if (chat.responseFormat === 'json_object') request.response_format = { type: 'json_object' };
  if (chat.provider) request.provider = chat.provider;
  const plugins = [...chat.plugins];
  if (chat.webSearch && !plugins.some((p) => p.id === 'web')) plugins.push({ id: 'web' });
  if (plugins.length > 0) request.plugins = plugins;
  if (chat.tools.length > 0) request.tools = chat.tools;
  return request;
}
