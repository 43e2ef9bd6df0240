// The dashboard's ask box (POST /admin/api/ask): the one ask flow (src/ask.ts) as the admin who
// holds the dashboard session, then the same retrieval deeper, with every passage's ranks and
// scores, so an admin sees why an answer read what it read.
import type { RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Asker, Installation } from '../ports.ts';
import { askAs } from '../ask.ts';
import type { RetrievedPassage } from '../search/retrieve.ts';
import type { ActivityStore } from '../store/activity.ts';
import { httpFailure } from './ask-http.ts';

const askBody = z.object({
  question: z.string().trim().min(1, 'question must not be empty').max(4000, 'question is over 4000 characters'),
  channel: z.string().max(100).optional(),
});

export interface DashboardAskDeps {
  app: Asker & Pick<Installation, 'config'>;
  activity: ActivityStore | undefined;
  log: Logger;
  send(res: Response, status: number, body: unknown): void;
}

export function dashboardAsk({ app, activity, log, send }: DashboardAskDeps): RequestHandler {
  const { config } = app;
  return async (req, res) => {
    const parsed = askBody.safeParse(req.body);
    if (!parsed.success)
      return send(res, 400, { error: parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ') });
    const { question } = parsed.data;
    const outcome = await askAs(
      { ask: app.ask, chunkCount: () => Number.POSITIVE_INFINITY, activity, config, log },
      // Every dashboard request holds the admin session (auth.ts), so it may ask as any configured channel.
      { question, facts: { surface: 'dashboard', channel: parsed.data.channel, admin: true } },
    );
    const failure = httpFailure(outcome, parsed.data.channel);
    if (failure || outcome.kind !== 'answered') return send(res, failure?.status ?? 500, { error: failure?.error });
    const { result, decision, latencyMs } = outcome;
    try {
      // The same retrieval, deeper. The first k are the ones the answer used (retrieval is
      // deterministic for a question and groups).
      const debug = await app.retrieve(question, decision.groups, Math.max(config.retrieval.candidates, config.retrieval.k));
      const sent = new Map(result.passages.map((p) => [p.chunk_id, p.label]));
      const passages = passageRows(debug.passages, sent);
      for (const p of result.passages) {
        if (!passages.some((d) => d.chunk_id === p.chunk_id)) {
          passages.push({
            rank: passages.length + 1,
            label: p.label,
            doc_id: p.doc_id,
            chunk_id: p.chunk_id,
            title: app.catalog.doc(p.doc_id)?.title ?? p.doc_id,
            kind: app.catalog.doc(p.doc_id)?.kind ?? 'note',
            section: p.section,
            text: p.text,
            dense_rank: null,
            bm25_rank: null,
            fused: p.score,
            exact: 0,
            rerank: null,
            score: p.score,
          });
        }
      }
      send(res, 200, {
        answer: result.answer,
        refused: result.refused,
        model: result.model,
        citations: result.citations,
        channel: decision.access.channel ?? 'public',
        groups: decision.groups,
        source: result.source ?? null,
        timings: { ...result.timings, totalMs: latencyMs },
        passages,
      });
    } catch (err) {
      log.error({ err }, 'admin ask: the passage table failed');
      send(res, 500, { error: 'Something went wrong answering this question.' });
    }
  };
}

/**
 * The ask box's rows: one per retrieved chunk, and a hit handed over with its neighbouring chunks
 * one row per chunk (each is labelled and cited on its own) at the hit's rank; only the hit has
 * dense and BM25 ranks of its own.
 */
function passageRows(passages: RetrievedPassage[], sent: Map<string, string>) {
  return passages.flatMap((p, i) =>
    (p.parts ?? [{ chunkId: p.chunkId, section: p.section, header: '', body: p.text, sep: '' as const }]).map((part) => {
      const text = part.header ? `${part.header}\n${part.body}` : part.body;
      const own = part.chunkId === p.chunkId;
      return {
        rank: i + 1,
        label: sent.get(part.chunkId) ?? null,
        doc_id: p.docId,
        chunk_id: part.chunkId,
        title: p.meta.title,
        kind: p.meta.kind,
        section: part.section,
        text: text.length > 800 ? `${text.slice(0, 800)}…` : text,
        dense_rank: own && p.debug.denseRank !== undefined ? p.debug.denseRank + 1 : null,
        bm25_rank: own && p.debug.lexicalRank !== undefined ? p.debug.lexicalRank + 1 : null,
        fused: p.debug.fused,
        exact: p.debug.exact,
        rerank: p.debug.rerank ?? null,
        score: p.score,
      };
    }),
  );
}
