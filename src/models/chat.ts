// Chat model provider: an OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio), or none (extractive answers).
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { Config } from '../config.ts';

export async function createChatModel(config: Pick<Config, 'llm' | 'openai'>): Promise<BaseChatModel | undefined> {
  if (config.llm.provider === 'none') return undefined;
  const { ChatOpenAI } = await import('@langchain/openai');
  return new ChatOpenAI({
    model: config.llm.model,
    temperature: 0,
    maxRetries: config.openai.maxRetries,
    timeout: config.openai.timeoutMs,
    apiKey: config.openai.apiKey ?? 'not-needed',
    configuration: { baseURL: config.openai.baseURL, apiKey: config.openai.apiKey ?? 'not-needed' },
  });
}

export function describeModel(config: Pick<Config, 'llm'>): string {
  return config.llm.provider === 'none' ? 'extractive (no model)' : config.llm.model;
}
