// How fast the Slack bot acks (HTTP response), shows it is at work (the thread's status line) and
// answers (the answer's chat.postMessage seen by the fake Slack)
// under a burst of 50 signed mentions, then a burst of 50 follow-ups without a mention in those
// threads (message.channels): real Bolt, Redis and Chroma, offline models, sample corpus.
// Run: npx tsx bench/slack-ack.ts [count]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import express from 'express';
import { openLabbot } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { startChromaServer } from '../src/store/chroma-server.ts';
import { startFakeSlack } from '../test/helpers/fake-slack.ts';
import { SIGNING_SECRET, slackEnv, startTestBot } from '../test/helpers/slack-bot.ts';
import { channelMessageEnvelope, eventRequest, mentionEnvelope } from '../test/helpers/slack-request.ts';

const COUNT = Number(process.argv[2] ?? 50);
const FOLLOW_UPS = ['and for HEK293T?', 'and on ice?', 'and on weekends?', 'and for bacterial stocks?', 'and in normoxia?'];
const QUESTIONS = [
  'What antibody dilution is used for the Western blot primary antibody?',
  'How long is the TRIzol incubation?',
  'How do I book the confocal microscope?',
  'Where is the -80 freezer rack for plasmids?',
  'What did Okafor et al. find about USP7 under hypoxia?',
];

function pct(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

interface Sent {
  status: number;
  ms: number;
  /** performance.timeOrigin + performance.now() at send: comparable across threads. */
  sentAt: number;
}

// The load generator runs in a worker thread so its own fetch/JSON work does not sit on the bot's
// event loop and inflate the ack times being measured. Plain JS (eval): tsx does not load in workers.
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, requests } = workerData;
// A fresh thread's first fetch loads and compiles undici: do that before the clock starts.
fetch(url, { method: 'GET' }).then((r) => r.text(), () => undefined).then(() => Promise.all(requests.map(async (req) => {
  const sentAt = performance.timeOrigin + performance.now();
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', headers: req.headers, body: req.body });
  await res.text();
  return { status: res.status, ms: performance.now() - t0, sentAt };
}))).then((out) => parentPort.postMessage(out));
`;

function burst(url: string, requests: { body: string; headers: Record<string, string> }[]): Promise<Sent[]> {
  return new Promise((resolve, reject) => {
    const w = new Worker(CLIENT, { eval: true, workerData: { url, requests } });
    w.once('message', (m: Sent[]) => {
      resolve(m);
      void w.terminate();
    });
    w.once('error', reject);
  });
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'labbot-bench-slack-'));
  const chroma = await startChromaServer(path.join(dir, 'chroma'));
  const fake = await startFakeSlack();
  const configFile = path.join(dir, 'labbot.config.json');
  writeFileSync(configFile, JSON.stringify({ sources: [{ id: 'lab', type: 'folder', path: path.resolve('examples/lab') }] }));
  const config = loadConfig({
    CHROMA_URL: chroma.url,
    LABBOT_COLLECTION: `bench-slack-${process.pid}`,
    LABBOT_DATA_DIR: path.join(dir, 'data'),
    LABBOT_CONFIG: configFile,
    LOG_LEVEL: 'silent',
    ...slackEnv(fake.apiUrl),
  });
  const app = await openLabbot(config, createLogger('silent'));
  await app.ingestSource(config.sources[0]);
  const concurrency = process.env.BENCH_CONCURRENCY ? Number(process.env.BENCH_CONCURRENCY) : undefined;
  const bot = await startTestBot(app, { concurrency });
  try {
    // A warm-up burst, so JIT and connection setup are not what is measured.
    const warm = await burst(
      bot.url,
      Array.from({ length: COUNT }, (_, i) =>
        eventRequest(SIGNING_SECRET, mentionEnvelope({ text: QUESTIONS[i % QUESTIONS.length], channel: `CW${i}` })),
      ),
    );
    await Promise.all(
      warm.map((_, i) => fake.waitFor(() => fake.callsOf('chat.postMessage').find((c) => c.body.channel === `CW${i}`), 120_000)),
    );

    const requests = Array.from({ length: COUNT }, (_, i) =>
      eventRequest(SIGNING_SECRET, mentionEnvelope({ text: QUESTIONS[i % QUESTIONS.length], channel: `CB${i}` })),
    );
    const acks = await burst(bot.url, requests);
    const bad = acks.filter((a) => a.status !== 200);
    if (bad.length) throw new Error(`${bad.length} requests were not acked with 200`);
    const abs = (at: number) => performance.timeOrigin + at;
    const answers = await Promise.all(
      Array.from({ length: COUNT }, (_, i) =>
        fake
          .waitFor(() => fake.callsOf('chat.postMessage').find((c) => c.body.channel === `CB${i}`), 120_000)
          .then((c) => abs(c.at) - acks[i].sentAt),
      ),
    );
    const ackMs = acks.map((a) => a.ms);
    // The floor: the same client and burst against an endpoint that answers 200 and does nothing.
    const bare = express().post('/slack/events', (_req, res) => void res.status(200).end());
    const bareServer = bare.listen(0, '127.0.0.1');
    await new Promise((r) => bareServer.once('listening', r));
    const bareUrl = `http://127.0.0.1:${(bareServer.address() as AddressInfo).port}/slack/events`;
    const floor = (await burst(bareUrl, requests)).map((a) => a.ms);
    bareServer.close();
    const statuses = Array.from(
      { length: COUNT },
      (_, i) => abs(fake.callsOf('assistant.threads.setStatus').find((c) => c.body.channel_id === `CB${i}`)!.at) - acks[i].sentAt,
    );
    const f = (n: number) => `${n.toFixed(1)} ms`;
    console.log(
      `${COUNT} concurrent signed mentions (HTTP mode, offline models, examples/lab: ${app.catalog.chunkCount} ` +
        `chunks, answer concurrency ${concurrency ?? 'default'})`,
    );
    console.log(`  HTTP ack:          p50 ${f(pct(ackMs, 50))}  p99 ${f(pct(ackMs, 99))}  max ${f(Math.max(...ackMs))}`);
    console.log(
      `  floor (bare 200):  p50 ${f(pct(floor, 50))}  p99 ${f(pct(floor, 99))}  ` +
        `(same client, an endpoint doing nothing; load average ${os.loadavg()[0].toFixed(1)})`,
    );
    console.log(`  status line:       p50 ${f(pct(statuses, 50))}  p99 ${f(pct(statuses, 99))}`);
    console.log(`  answer posted:     p50 ${f(pct(answers, 50))}  p99 ${f(pct(answers, 99))}  max ${f(Math.max(...answers))}`);
    const dupes = fake.callsOf('chat.postMessage').length - 2 * COUNT;
    console.log(`  chat.postMessage calls beyond one per mention: ${dupes}`);

    // Follow-ups: the asker's plain reply (no mention) in each answered thread, all at once, within the follow-up window.
    const threadTs = requests.map((r) => (JSON.parse(r.body) as { event: { ts: string } }).event.ts);
    const followUps = Array.from({ length: COUNT }, (_, i) =>
      eventRequest(
        SIGNING_SECRET,
        channelMessageEnvelope({ text: FOLLOW_UPS[i % FOLLOW_UPS.length], channel: `CB${i}`, threadTs: threadTs[i] }),
      ),
    );
    const fAcks = await burst(bot.url, followUps);
    const fBad = fAcks.filter((a) => a.status !== 200);
    if (fBad.length) throw new Error(`${fBad.length} follow-ups were not acked with 200`);
    const fAnswers = await Promise.all(
      Array.from({ length: COUNT }, (_, i) =>
        fake
          .waitFor(() => fake.callsOf('chat.postMessage').filter((c) => c.body.channel === `CB${i}`)[1], 120_000)
          .then((c) => abs(c.at) - fAcks[i].sentAt),
      ),
    );
    const fAckMs = fAcks.map((a) => a.ms);
    const reads = fake.callsOf('conversations.replies').filter((c) => String(c.body.channel).startsWith('CB')).length;
    console.log(`${COUNT} concurrent follow-ups without a mention in those threads (message.channels)`);
    console.log(`  HTTP ack:          p50 ${f(pct(fAckMs, 50))}  p99 ${f(pct(fAckMs, 99))}  max ${f(Math.max(...fAckMs))}`);
    console.log(`  answer posted:     p50 ${f(pct(fAnswers, 50))}  p99 ${f(pct(fAnswers, 99))}  max ${f(Math.max(...fAnswers))}`);
    console.log(
      `  thread reads (conversations.replies): ${reads}; chat.postMessage calls ` +
        `beyond one per follow-up: ${fake.callsOf('chat.postMessage').length - 3 * COUNT}`,
    );
    const sample = fake.callsOf('chat.postMessage').find((c) => c.body.channel === 'CB0')!;
    if (process.env.SHOW_SAMPLE) console.log(JSON.stringify(sample.body.blocks, null, 2));
  } finally {
    await bot.close();
    await app.close();
    await fake.close();
    await chroma.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
