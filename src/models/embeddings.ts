// Embedding providers behind LangChain's Embeddings interface.
import type { Embeddings } from '@langchain/core/embeddings';
import { OpenAIEmbeddings } from '@langchain/openai';
import type { Config } from '../config.ts';
import { HashEmbeddings } from './hash-embeddings.ts';

export function createEmbeddings(config: Pick<Config, 'embeddings' | 'openai'>): Embeddings {
  if (config.embeddings.provider === 'hash') {
    return new HashEmbeddings({ dimensions: config.embeddings.dimensions ?? 384 });
  }
  return new OpenAIEmbeddings({
    model: config.embeddings.model,
    dimensions: config.embeddings.dimensions,
    // The SDK asks for base64 by default; OpenAI-compatible local servers that answer with
    // plain arrays then decode into silently wrong vectors.
    encodingFormat: 'float',
    batchSize: 128,
    maxRetries: config.openai.maxRetries,
    timeout: config.openai.timeoutMs,
    apiKey: config.openai.apiKey ?? 'not-needed',
    configuration: { baseURL: config.openai.baseURL, apiKey: config.openai.apiKey ?? 'not-needed' },
  });
}
