import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { dialects } from './helpers/databases.js';
import { registerUser } from './helpers/factories.js';

describe.each(dialects)('smoke on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ dialect });
  });
  afterAll(() => t.close());

  it('registers, reads me, logs out', async () => {
    const a = await registerUser(t);
    const me = await t.request({ method: 'GET', url: '/auth/me', token: a.token });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ user: a.user, workspaces: [{ id: a.workspaceId, role: 'admin' }] });
    const out = await t.request({ method: 'POST', url: '/auth/logout', token: a.token });
    expect(out.statusCode).toBe(200);
    const again = await t.request({ method: 'GET', url: '/auth/me', token: a.token });
    expect(again.statusCode).toBe(401);
    const oa = await t.request({ method: 'GET', url: '/openapi.json' });
    expect(oa.statusCode).toBe(200);
    const docs = await t.request({ method: 'GET', url: '/docs' });
    expect(docs.statusCode).toBeLessThan(400);
    const bad = await t.request({ method: 'POST', url: '/auth/register', payload: { email: 'nope', password: 'x' } });
    console.log(bad.statusCode, bad.body);
  });
});
