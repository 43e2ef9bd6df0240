// POST /api/ask may not be used to read a restricted group by naming a channel: with an admin
// token configured, only a request carrying it may ask "as" a channel.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminServer, TOKEN, type AdminServer } from './admin-server.ts';

describe('/api/ask channel access', () => {
  let s: AdminServer;
  beforeAll(async () => {
    s = await startAdminServer();
  }, 60_000);
  afterAll(async () => {
    await s?.close();
  });

  const ask = (body: object, headers: Record<string, string> = {}) =>
    fetch(`${s.url}/api/ask`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('refuses a channel without the admin token, and never returns restricted text', async () => {
    const res = await ask({ question: 'What is the renewal code word?', channel: 'CPI' });
    expect(res.status).toBe(403);
    expect(await res.text()).not.toContain('NIGHTJAR');
    const wrong = await ask(
      { question: 'What is the renewal code word?', channel: 'CPI' },
      { authorization: 'Bearer not-the-token-0123456789' },
    );
    expect(wrong.status).toBe(403);
  });

  it('answers public questions without a token, and channel questions with it', async () => {
    const pub = await ask({ question: 'What is the renewal code word?' });
    expect(pub.status).toBe(200);
    expect(JSON.stringify(await pub.json())).not.toContain('NIGHTJAR');
    const admin = await ask({ question: 'What is the renewal code word?', channel: 'CPI' }, { authorization: `Bearer ${TOKEN}` });
    expect(admin.status).toBe(200);
    expect(JSON.stringify(await admin.json())).toContain('NIGHTJAR');
  });
});
