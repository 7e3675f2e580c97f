/** Builds the chat request from the settings. Pure: unit-tested without VS Code. */
import type { ChatMessage, ChatRequest } from '../../api/types';
import type { GatewaySettings } from '../config/settingsModel';
import { withCacheBreakpoints } from '../cost/promptCache';
import { reasoningFor } from '../lm/request';

export function buildChatRequest(
  chat: GatewaySettings['chat'],
  model: string,
  messages: ChatMessage[],
): ChatRequest {
  // Models that cache only where asked get the marks; every other model's messages go as they are.
  const sent = chat.promptCaching ? withCacheBreakpoints(messages, model) : messages;
  const request: ChatRequest = { model, messages: sent, stream: true };
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
