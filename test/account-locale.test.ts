import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { dialects } from './helpers/databases.js';
import { registerUser } from './helpers/factories.js';
import { expectError, login } from './helpers/teams.js';

/** Issue #29: the web client's language is stored on the user (GET/PATCH /auth/me `locale`). */

interface MeBody {
  user: { id: number; name: string; phone: string | null; locale: string | null };
}

describe.each(dialects)('account locale on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ dialect });
  });
  afterAll(() => t.close());

  const me = async (token: string) => {
    const res = await t.request({ method: 'GET', url: '/auth/me', token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json<MeBody>().user;
  };
  const patch = (token: string, payload: Record<string, unknown>) => t.request({ method: 'PATCH', url: '/auth/me', token, payload });

  it('is null until chosen, then stored, answered to every session, and cleared with null', async () => {
    const a = await registerUser(t);
    expect((await me(a.token)).locale).toBeNull();

    const res = await patch(a.token, { locale: 'de' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<MeBody>().user.locale).toBe('de');

    // Another sign-in (another browser) reads the same choice.
    const other = await login(t, a.user.email, a.password);
    expect(other.statusCode, other.body).toBe(200);
    expect((await me(other.json<{ token: string }>().token)).locale).toBe('de');

    // Changing the name leaves the language alone, and the other way round.
    expect((await patch(a.token, { name: 'Renamed' })).json<MeBody>().user).toMatchObject({ name: 'Renamed', locale: 'de' });
    expect((await patch(a.token, { locale: 'fr' })).json<MeBody>().user).toMatchObject({ name: 'Renamed', locale: 'fr' });
    expect((await patch(a.token, { locale: 'es' })).json<MeBody>().user.locale).toBe('es');

    expect((await patch(a.token, { locale: null })).json<MeBody>().user.locale).toBeNull();
    expect((await me(a.token)).locale).toBeNull();
  });

  it('refuses a language the client does not have (400 naming locale) and keeps the stored one', async () => {
    const a = await registerUser(t);
    expect((await patch(a.token, { locale: 'en' })).statusCode).toBe(200);
    for (const locale of ['it', 'DE', 'de-DE', '', 42]) {
      expectError(await patch(a.token, { locale }), 400, 'VALIDATION_ERROR', 'locale');
    }
    expect((await me(a.token)).locale).toBe('en');
  });

  it('is not for anyone signed out', async () => {
    const res = await t.request({ method: 'PATCH', url: '/auth/me', payload: { locale: 'de' } });
    expect(res.statusCode).toBe(401);
  });
});
