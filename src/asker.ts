// The Asker port (src/ports.ts) over the live index: hybrid retrieval (dense and lexical, fused
// and reranked) and answers from it, with retraction notices, and a listener per ask (metrics).
import { createApertiumTranslator, offTranslator } from './translate/apertium.ts';
import { createModelTranslator } from './translate/model.ts';
import { sensesOf, translationsOf, type Translator } from './translate/translator.ts';
import { detectLanguage } from './search/tokenize.ts';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { Logger } from 'pino';
import { answerQuestion } from './answer/answer.ts';
import { groupsForChannel, type Config } from './config.ts';
import { withNotices, type NoticeBoard } from './enrich/notices.ts';
import type { PhysicalIndex } from './index/physical-index.ts';
import { describeModel } from './models/chat.ts';
import type { AskedEvent, Asker } from './ports.ts';
import { createHttpReranker, createOfflineReranker, type Reranker } from './search/rerank.ts';
import { retrieve } from './search/retrieve.ts';
import { ChromaUnavailableError } from './store/chroma-store.ts';

export interface AskerDeps {
  config: Config;
  log: Logger;
  /** The live index, read once per question (a switch may land meanwhile). */
  live(): PhysicalIndex;
  chat: BaseChatModel | undefined;
  notices: NoticeBoard | undefined;
  /** Translates questions for retrieval (src/translate/); absent or unavailable: one language only. */
  translator?: Translator;
}

/** The translator the config names: Apertium (auto: when installed), the chat model (only by name), or none. */
export function configuredTranslator(config: Config, log: Logger, chat?: BaseChatModel): Translator {
  const t = config.translation;
  if (t.provider === 'off') return offTranslator();
  if (t.provider === 'model') {
    const model = createModelTranslator({
      chat,
      model: describeModel(config),
      pairs: t.pairs,
      timeoutMs: t.timeoutMs,
      onError: (err, pair) =>
        log.warn({ err: err.message, from: pair.from, to: pair.to }, 'model translation failed; searching in the question language only'),
    });
    if (!model.status().available) log.warn({ detail: model.status().detail }, 'translation unavailable');
    return model;
  }
  return createApertiumTranslator({
    binary: t.binary,
    pairs: t.pairs,
    timeoutMs: t.timeoutMs,
    warm: t.warm,
    onError: (err, pair, kind) =>
      kind === 'senses'
        ? log.warn({ err: err.message, mode: pair.mode }, "Apertium's word senses failed; answering with the translation alone")
        : log.warn({ err: err.message, mode: pair.mode }, 'translation failed; searching in the question language only'),
    onFallback: (err, pair, kind) =>
      kind === 'senses'
        ? log.warn({ err: err.message, mode: pair.mode }, "Apertium's dictionary stages could not start; answering without word senses")
        : log.warn({ err: err.message, mode: pair.mode }, 'Apertium pipeline could not start; running apertium per call'),
    // Asked for by name and missing is worth a warning; auto on a machine without it is the usual case.
    onStatus: (status) => {
      if (!status.available)
        (t.provider === 'apertium' ? log.warn : log.info).call(log, { detail: status.detail }, 'translation unavailable');
    },
  });
}

/** The reranker the config names: an HTTP /rerank endpoint, or the offline one. */
export function configuredReranker(config: Config, log: Logger): Reranker {
  return config.rerank
    ? createHttpReranker({
        ...config.rerank,
        fetch,
        timeoutMs: config.openai.timeoutMs,
        onError: (err) => log.warn({ err: err.message }, 'rerank endpoint failed; keeping the fused order'),
      })
    : // Term weights come with each search (idf over the groups searched), never from all groups.
      createOfflineReranker();
}

export function createAsker(deps: AskerDeps, reranker: Reranker): Pick<Asker, 'retrieve' | 'ask' | 'onAsked'> {
  const { config, log, chat, notices } = deps;
  const listeners: ((e: AskedEvent) => void)[] = [];

  const doRetrieve: Asker['retrieve'] = async (question, groups, k) => {
    // One index for the whole question, even if a switch lands meanwhile; queries are embedded
    // with the model that index was built with.
    const index = deps.live();
    const language = detectLanguage(question);
    // The translation is looked up while the dense search runs (retrieve waits for it only before
    // the lexical search); the words' senses, for the answer step, are waited for after both.
    const sensesP = sensesOf(question, language, config.translation.pairs, deps.translator);
    const result = await retrieve(
      question,
      groups,
      config.retrieval,
      {
        catalog: index.catalog,
        // An outage must reach the user ("index unavailable"); any other dense failure (a
        // collection built with other vector dimensions, mid-switch) leaves lexical retrieval.
        dense: (group, vector, n) =>
          index.store.query(group, vector, n).catch((err: Error) => {
            if (err instanceof ChromaUnavailableError) throw err;
            log.warn({ group, err: err.message }, 'dense search failed; answering from lexical retrieval');
            return [];
          }),
        embedQuery: (q) => index.embeddings.embedQuery(q),
        reranker,
        onDenseError: (err) => log.warn({ err: err.message }, 'query embedding failed; answering from lexical retrieval only'),
      },
      k,
      translationsOf(question, language, config.translation.pairs, deps.translator),
    );
    const senses = await sensesP;
    return senses.length ? { ...result, senses } : result;
  };

  return {
    retrieve: doRetrieve,
    ask: async (question, o = {}) => {
      const t0 = performance.now();
      try {
        const groups = groupsForChannel(config.access, o.channel, o.user);
        const result = await answerQuestion(
          question,
          {
            // Notices are read from memory here, so a retraction is flagged on every path of the answer.
            retrieve: (q) =>
              doRetrieve(q, groups, o.k).then((r) => (notices ? { ...r, passages: withNotices(r.passages, notices.get) } : r)),
            contextChars: config.retrieval.contextChars,
            chat,
            modelName: describeModel(config),
            log,
            onToken: o.onToken,
          },
          o.history,
        );
        for (const l of listeners) l({ result, totalMs: performance.now() - t0 });
        return result;
      } catch (err) {
        for (const l of listeners) l({ error: err as Error, totalMs: performance.now() - t0 });
        throw err;
      }
    },
    onAsked: (l) => void listeners.push(l),
  };
}
