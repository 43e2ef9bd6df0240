// Embedding cache in Redis keyed by chunk-text hash and embedding model: an edited page re-embeds
// only chunks whose text changed, and a rebuild that changes chunking but not the model re-embeds
// only texts it has never seen. Vectors are stored as float32 bytes (a quarter of JSON's size).
import type { EmbeddingCache } from '../types.ts';
import type { Redis } from './redis.ts';

const TTL_SECONDS = 60 * 24 * 3600;

export function createEmbeddingCache(redis: Redis, ns: string, model: string): EmbeddingCache {
  const key = (hash: string) => `${ns}:emb:${model}:${hash}`;
  return {
    async get(hashes) {
      const out = new Map<string, number[]>();
      for (let i = 0; i < hashes.length; i += 500) {
        const slice = hashes.slice(i, i + 500);
        const values = await redis.mgetBuffer(...slice.map(key));
        values.forEach((buf, j) => {
          if (buf && buf.length % 4 === 0 && buf.length > 0) {
            const f = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
            out.set(slice[j], Array.from(f));
          }
        });
      }
      return out;
    },
    async set(entries) {
      if (!entries.length) return;
      const tx = redis.pipeline();
      for (const e of entries) tx.set(key(e.hash), Buffer.from(new Float32Array(e.vector).buffer), 'EX', TTL_SECONDS);
      await tx.exec();
    },
  };
}
