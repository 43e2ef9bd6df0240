// Embedding providers behind LangChain's Embeddings interface.
import type { Embeddings } from '@langchain/core/embeddings';
import type { Config } from '../config.ts';
import { HashEmbeddings } from './hash-embeddings.ts';

// @langchain/openai loads only when configured: it adds ~70 MB of RSS to an offline process.
export async function createEmbeddings(config: Pick<Config, 'embeddings' | 'openai'>): Promise<Embeddings> {
  if (config.embeddings.provider === 'hash') {
    return new HashEmbeddings({ dimensions: config.embeddings.dimensions ?? 384 });
  }
  const { OpenAIEmbeddings } = await import('@langchain/openai');
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
