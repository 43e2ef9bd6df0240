// The member-facing document view (GET /doc) behind the signed links in Slack answers: it opens the
// whole protocol a link was made for, and nothing a guessed or edited URL asks for. Real Chroma,
// Redis and Bolt; the links come from what labbot really posted to the fake Slack.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { docViewUrl } from '../src/answer/doc-links.ts';
import { docViewRouter } from '../src/admin/doc-view.ts';
import { createHttpApp, listen } from '../src/admin/server.ts';
import type { Labbot } from '../src/app.ts';
import type { FakeSlack } from './helpers/fake-slack.ts';
import { LINK_SECRET, midiprepStep, protocolFolder, PUBLIC_URL, STEPS } from './helpers/protocol-corpus.ts';
import { SIGNING_SECRET, type RunningBot } from './helpers/slack-bot.ts';
import { startSlackHarness, type SlackHarness } from './helpers/slack-harness.ts';
import { post, slashRequest } from './helpers/slack-request.ts';

describe('document view', () => {
  let harness: SlackHarness | undefined;
  let app: Labbot;
  let fake: FakeSlack;
  let bot: RunningBot;
  const servers: Server[] = [];

  /** A view server over this app, optionally with another config or clock. */
  async function viewServer(opts: { config?: Labbot['config']; now?: () => number } = {}): Promise<string> {
    const router = docViewRouter({ catalog: () => app.catalog, config: opts.config ?? app.config, log: app.log, now: opts.now });
    const server = await listen(createHttpApp(app, { routers: [router] }), 0, '127.0.0.1');
    servers.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  let base: string;
  const local = (link: string, at = base) => link.replace(PUBLIC_URL, at);

  beforeAll(async () => {
    harness = await startSlackHarness({
      fileConfig: {
        sources: [{ id: 'protocols', type: 'folder', path: protocolFolder() }],
        access: { default: 'public', channels: { CPI: ['pi-only'] } },
      },
      env: { LABBOT_PUBLIC_URL: PUBLIC_URL, LABBOT_LINK_SECRET: LINK_SECRET },
    });
    ({ app, fake, bot } = harness);
    base = await viewServer();
  });
  afterAll(async () => {
    for (const s of servers) await new Promise<void>((r) => s.close(() => r()));
    await harness?.close();
  });

  /** The links labbot posted for a private answer: the cited place and "open the whole document". */
  async function linksFor(channel: string, question: string, id: string): Promise<{ cited: string; whole: string }> {
    await post(bot.url, slashRequest(SIGNING_SECRET, { text: `ask ${question}`, channel, responseUrl: fake.responseUrl(id) }));
    const r = await fake.waitFor(() => fake.responses.find((x) => x.id === id), 30_000);
    const text = JSON.stringify(r.body.blocks);
    const cited = /<(https:\/\/labbot\.test\/doc\?[^|>]+#[a-z]+-\d+)\|/.exec(text)?.[1];
    const whole = /<(https:\/\/labbot\.test\/doc\?[^|>#]+)\|open the whole document>/.exec(text)?.[1];
    expect(cited, text).toBeDefined();
    expect(whole, text).toBeDefined();
    return { cited: cited!.replace(/\\u0026/g, '&'), whole: whole!.replace(/\\u0026/g, '&') };
  }

  it('opens the whole 60-step protocol from the posted link, at the cited step, all text escaped', async () => {
    const { cited, whole } = await linksFor('CGENERAL', 'How much buffer QX42 do we add in the midiprep?', 'v-whole');
    const anchor = cited.split('#')[1];
    expect(cited.split('#')[0]).toBe(whole);
    const res = await fetch(local(whole));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toMatch(/no-store/);
    const page = await res.text();
    for (let n = 1; n <= STEPS; n++) expect(page.split(midiprepStep(n)).length - 1, `step ${n} once`).toBe(1);
    expect(page).toContain(`id="${anchor}"`);
    expect(page).toContain('Label it &lt;script&gt;alert(1)&lt;/script&gt; &amp; date it.');
    expect(page).not.toContain('<script>');
  });

  it('refuses a link whose signature, document, groups or conversation was edited, and one with none', async () => {
    const { whole } = await linksFor('CGENERAL', 'How much buffer QX7 do we add in the midiprep?', 'v-tamper');
    const u = new URL(local(whole));
    const edit = (k: string, v: string) => {
      const x = new URL(u);
      x.searchParams.set(k, v);
      return x.href;
    };
    const sig = u.searchParams.get('s')!;
    const restricted = [...app.catalog.docs()].find((d) => d.access === 'pi-only')!;
    for (const bad of [
      edit('s', `${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`),
      edit('d', restricted.id),
      edit('g', 'pi-only,public'),
      edit('w', 'channel:CPI'),
      edit('e', String(Number(u.searchParams.get('e')) + 86_400)),
      `${base}/doc?d=${encodeURIComponent(restricted.id)}`,
    ]) {
      const res = await fetch(bad);
      expect(res.status, bad).toBe(403);
      expect(await res.text()).not.toMatch(/ORIOLE|buffer QX/);
    }
  });

  it('a channel granted pi-only gets a working link to the restricted protocol; revoking the grant closes it', async () => {
    const { whole } = await linksFor('CPI', 'How long do we thaw the ORIOLE-7 kinase?', 'v-pi');
    const ok = await fetch(local(whole));
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('ORIOLE-7');
    // Same link, served under a configuration that no longer grants CPI pi-only (edited and restarted).
    const revoked = await viewServer({
      config: { ...app.config, access: { ...app.config.access, channels: Object.assign(Object.create(null), { CPI: [] }) } },
    });
    const closed = await fetch(local(whole, revoked));
    expect(closed.status).toBe(404);
    expect(await closed.text()).not.toContain('ORIOLE');
  });

  it('a valid signature for groups that do not include the document’s group opens nothing (a document moved since)', async () => {
    const restricted = [...app.catalog.docs()].find((d) => d.access === 'pi-only')!;
    const settings = app.config.docLinks!;
    const link = docViewUrl(settings, {
      docId: restricted.id,
      who: 'channel:CPI',
      groups: ['public'],
      expires: Math.floor(Date.now() / 1000) + 3600,
    });
    const res = await fetch(local(link));
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('ORIOLE');
  });

  it('an expired link says so and shows nothing', async () => {
    const { whole } = await linksFor('CGENERAL', 'How much buffer QX3 do we add in the midiprep?', 'v-exp');
    const later = await viewServer({ now: () => Date.now() + app.config.docLinks!.ttlMs + 60_000 });
    const res = await fetch(local(whole, later));
    expect(res.status).toBe(410);
    const page = await res.text();
    expect(page).toMatch(/expired/);
    expect(page).not.toContain('buffer QX');
  });
});
