import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttpReranker, createOfflineReranker, passageFeatures, type RerankPassage } from '../src/search/rerank.ts';
import { tokenizeWithPositions } from '../src/search/tokenize.ts';

const ids = (hits: { id: string }[]) => hits.map((h) => h.id);

describe('passageFeatures', () => {
  it('measures coverage, proximity and phrase matches', () => {
    const q = tokenizeWithPositions('heat shock protein expression');
    const exact = passageFeatures(q, 'We measured heat shock protein expression in yeast.');
    expect(exact.coverage).toBe(1);
    expect(exact.phrase).toBe(1);
    expect(exact.proximity).toBeGreaterThan(0);
    const half = passageFeatures(q, 'Protein expression was measured.');
    expect(half.coverage).toBeCloseTo(0.5, 12);
    expect(half.phrase).toBeCloseTo(1 / 3, 12);
    const none = passageFeatures(q, 'Unrelated words entirely.');
    expect(none).toEqual({ coverage: 0, proximity: 0, phrase: 0 });
  });

  it('weights coverage by idf when given', () => {
    const q = tokenizeWithPositions('rare common');
    const idf = (t: string) => (t === 'rare' ? 3 : 1);
    expect(passageFeatures(q, 'a rare thing', { idf }).coverage).toBeCloseTo(0.75, 12);
    expect(passageFeatures(q, 'a common thing', { idf }).coverage).toBeCloseTo(0.25, 12);
  });

  it('gives no proximity credit beyond the window', () => {
    const q = tokenizeWithPositions('kinase inhibitor');
    const filler = Array.from({ length: 20 }, (_, i) => `filler${i}x`).join(' ');
    expect(passageFeatures(q, `kinase ${filler} inhibitor`).proximity).toBe(0);
    expect(passageFeatures(q, `kinase ${filler} inhibitor`, { proximityWindow: 30 }).proximity).toBeGreaterThan(0);
    expect(passageFeatures(q, 'inhibitor of the kinase').proximity).toBeCloseTo(1 / 3, 12);
  });
});

describe('createOfflineReranker', () => {
  const p = (id: string, text: string, score: number): RerankPassage => ({ id, text, score });

  it('returns every passage once, best first, and nothing for nothing', async () => {
    const rr = createOfflineReranker();
    expect(await rr.rerank('anything', [])).toEqual([]);
    const out = await rr.rerank('kinase', [p('a', 'kinase', 0.5), p('b', 'other', 0.4), p('c', 'kinase assay', 0.3)]);
    expect(new Set(ids(out))).toEqual(new Set(['a', 'b', 'c']));
    expect(out).toHaveLength(3);
    for (let i = 1; i < out.length; i++) expect(out[i - 1].score).toBeGreaterThanOrEqual(out[i].score);
  });

  it('scores passages given with their analysed tokens exactly as it scores their texts, and reads the tokens given', async () => {
    const rr = createOfflineReranker();
    expect(rr.readsTokens).toBe(true);
    const passages = [
      p('a', 'Heat shock protein 70 in yeast cells under stress.', 0.5),
      p('b', 'Yeast grown at 37 C expressed heat shock genes.', 0.45),
      p('c', 'Protein folding in bacteria.', 0.6),
    ];
    const query = 'heat shock protein in yeast';
    const plain = await rr.rerank(query, passages);
    expect(
      await rr.rerank(
        query,
        passages.map((x) => ({ ...x, tokens: tokenizeWithPositions(x.text) })),
      ),
    ).toEqual(plain);
    // Tokens of another text are what gets scored: they are not re-derived from the text.
    const swapped = await rr.rerank(
      query,
      passages.map((x) => ({ ...x, tokens: tokenizeWithPositions('protein folding') })),
    );
    expect(swapped).not.toEqual(plain);
  });

  it('keeps the incoming order when the text features do not differ', async () => {
    const rr = createOfflineReranker();
    const text = 'the same passage about kinase inhibitors';
    const out = await rr.rerank('kinase inhibitor', [p('x', text, 0.9), p('y', text, 0.5), p('z', text, 0.5), p('w', text, 0.1)]);
    expect(ids(out)).toEqual(['x', 'y', 'z', 'w']);
  });

  it('prefers the passage covering more of the question among close fused scores', async () => {
    const rr = createOfflineReranker();
    const out = await rr.rerank('heat shock protein in yeast', [
      p('partial', 'Protein folding in bacteria.', 0.031),
      p('full', 'Heat shock protein induction in yeast.', 0.03),
      p('far', 'Nothing relevant at all.', 0.01),
    ]);
    expect(ids(out)).toEqual(['full', 'partial', 'far']);
  });

  it('uses proximity and phrase matches', async () => {
    const filler = Array.from({ length: 12 }, (_, i) => `filler${i}x`).join(' ');
    const passages = [p('apart', `kinase ${filler} inhibitor`, 1), p('close', `inhibitor of the kinase ${filler}`, 1)];
    const prox = createOfflineReranker({ weights: { coverage: 0, phrase: 0 } });
    expect(ids(await prox.rerank('kinase inhibitor', passages))).toEqual(['close', 'apart']);
    const phrase = createOfflineReranker({ weights: { coverage: 0, proximity: 0 } });
    const out = await phrase.rerank('kinase inhibitor', [...passages, p('phrase', `${filler} kinase inhibitor`, 1)]);
    expect(ids(out)[0]).toBe('phrase');
  });

  it('adjusts the fused ranking rather than replacing it', async () => {
    const rr = createOfflineReranker();
    const passages = [
      p('top', 'Unrelated text about buffers.', 1.0),
      p('mid', 'More unrelated text.', 0.5),
      p('bottom', 'Kinase inhibitor kinase inhibitor.', 0.0),
    ];
    // Perfect features cannot lift the bottom passage over a far better fused score...
    expect(ids(await rr.rerank('kinase inhibitor', passages))[0]).toBe('top');
    // ...but do lift a passage over a neighbour with a close fused score.
    passages[2].score = 0.97;
    expect(ids(await rr.rerank('kinase inhibitor', passages))[0]).toBe('bottom');
    // And with all feature weights at zero the incoming order stands.
    const fusedOnly = createOfflineReranker({ weights: { coverage: 0, proximity: 0, phrase: 0 } });
    expect(ids(await fusedOnly.rerank('kinase inhibitor', passages))).toEqual(['top', 'bottom', 'mid']);
  });

  it('weights query terms by the idf it is given', async () => {
    const passages = [p('a', 'a study of apoptosis', 1), p('b', 'a study of cells', 1)];
    const byIdf = (rare: string) => createOfflineReranker({ idf: (t) => (t === rare ? 5 : 0.1) });
    expect(ids(await byIdf('apoptosi').rerank('apoptosis cells', passages))[0]).toBe('a');
    expect(ids(await byIdf('cell').rerank('apoptosis cells', passages))[0]).toBe('b');
  });
});

describe('createHttpReranker', () => {
  let server: http.Server | undefined;
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  interface Seen {
    body?: { query: string; documents: string[]; top_n: number; model?: string };
    auth?: string;
    path?: string;
  }

  async function serve(handler: (body: Seen['body'], res: http.ServerResponse) => void): Promise<{ url: string; seen: Seen }> {
    const seen: Seen = {};
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        seen.body = JSON.parse(raw);
        seen.auth = req.headers.authorization;
        seen.path = req.url;
        handler(seen.body, res);
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/rerank`, seen };
  }

  const passages: RerankPassage[] = [
    { id: 'a', text: 'first passage', score: 0.3 },
    { id: 'b', text: 'second passage', score: 0.2 },
    { id: 'c', text: 'third passage', score: 0.1 },
  ];
  const json = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  it('posts the Cohere/Jina request and maps results by index', async () => {
    const { url, seen } = await serve((_, res) =>
      json(res, 200, {
        results: [
          { index: 2, relevance_score: 0.9 },
          { index: 0, relevance_score: 0.5 },
          { index: 1, relevance_score: 0.1 },
        ],
      }),
    );
    const rr = createHttpReranker({ url, model: 'rerank-v3', apiKey: 'secret', fetch });
    const out = await rr.rerank('which passage?', passages);
    expect(out).toEqual([
      { id: 'c', score: 0.9 },
      { id: 'a', score: 0.5 },
      { id: 'b', score: 0.1 },
    ]);
    expect(seen.path).toBe('/rerank');
    expect(seen.auth).toBe('Bearer secret');
    expect(seen.body).toEqual({
      query: 'which passage?',
      documents: ['first passage', 'second passage', 'third passage'],
      top_n: 3,
      model: 'rerank-v3',
    });
  });

  it('accepts the TEI answer shape and appends passages the server left out', async () => {
    const { url, seen } = await serve((_, res) => json(res, 200, [{ index: 1, score: 2.5 }]));
    const out = await createHttpReranker({ url, fetch }).rerank('q', passages);
    expect(ids(out)).toEqual(['b', 'a', 'c']);
    expect(out[0].score).toBe(2.5);
    expect(out[1].score).toBeLessThan(2.5);
    expect(seen.auth).toBeUndefined();
    expect(seen.body?.model).toBeUndefined();
  });

  it('returns the input order and reports the error when the endpoint fails', async () => {
    const { url } = await serve((_, res) => json(res, 500, { error: 'model not loaded' }));
    const errors: Error[] = [];
    const out = await createHttpReranker({ url, fetch, onError: (e) => errors.push(e) }).rerank('q', passages);
    expect(out).toEqual(passages.map(({ id, score }) => ({ id, score })));
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toContain('500');
    expect(errors[0].message).toContain('model not loaded');
  });

  it('falls back on malformed answers', async () => {
    const errors: Error[] = [];
    const onError = (e: Error) => errors.push(e);
    const bad = await serve((_, res) => json(res, 200, { results: [{ index: 7, relevance_score: 1 }] }));
    expect(ids(await createHttpReranker({ url: bad.url, fetch, onError }).rerank('q', passages))).toEqual(['a', 'b', 'c']);
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    const notJson = await serve((_, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('oops');
    });
    expect(ids(await createHttpReranker({ url: notJson.url, fetch, onError }).rerank('q', passages))).toEqual(['a', 'b', 'c']);
    expect(errors.map((e) => e.message)).toEqual([expect.stringContaining('bad index'), expect.stringMatching(/JSON/)]);
  });

  it('falls back when the server is unreachable or too slow', async () => {
    const errors: Error[] = [];
    const onError = (e: Error) => errors.push(e);
    const { url } = await serve(() => {
      /* never answers */
    });
    const slow = await createHttpReranker({ url, fetch, timeoutMs: 200, onError }).rerank('q', passages);
    expect(ids(slow)).toEqual(['a', 'b', 'c']);
    server!.closeAllConnections();
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    const down = await createHttpReranker({ url, fetch, onError }).rerank('q', passages);
    expect(ids(down)).toEqual(['a', 'b', 'c']);
    expect(errors).toHaveLength(2);
  });

  it('does not call the endpoint for an empty list', async () => {
    let called = false;
    const fakeFetch = (async () => {
      called = true;
      throw new Error('unexpected');
    }) as typeof fetch;
    expect(await createHttpReranker({ url: 'http://127.0.0.1:1/rerank', fetch: fakeFetch }).rerank('q', [])).toEqual([]);
    expect(called).toBe(false);
  });
});

describe('word-family prefixes in coverage', () => {
  it('gives partial coverage credit to a derivation stemming keeps apart', () => {
    const q = tokenizeWithPositions('nurse cystoscopist accuracy');
    const family = passageFeatures(q, 'A trained nurse performed flexible cystoscopy with high accuracy.');
    const none = passageFeatures(q, 'A trained nurse performed the scan with high accuracy.');
    const exact = passageFeatures(q, 'The nurse cystoscopist reached high accuracy.');
    expect(family.coverage).toBeGreaterThan(none.coverage);
    expect(family.coverage).toBeLessThan(exact.coverage);
  });
});
