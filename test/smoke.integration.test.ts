import { describe, expect, it, inject } from 'vitest';

describe('test services', () => {
  it('has a real Chroma server answering its heartbeat', async () => {
    const res = await fetch(`${inject('chromaUrl')}/api/v2/heartbeat`);
    expect(res.status).toBe(200);
  });
});
