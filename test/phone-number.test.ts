import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app.js';
import { dialects } from './helpers/databases.js';
import { registerUser, type Account, type Envelope } from './helpers/factories.js';

/**
 * POST /phone-number/validate and the account's phone (GET/PATCH /auth/me), issue #13.
 * Validation is pure and runs once (SQLite); the stored phone runs on every database.
 */

interface PhoneCheck {
  valid: boolean;
  possible: boolean;
  e164: string | null;
  international: string | null;
  national: string | null;
  country: string | null;
  calling_code: string | null;
  type: string | null;
  extension: string | null;
  reason?: string;
}
interface Me {
  user: { id: number; email: string; name: string; phone: string | null };
  workspaces: { id: number; name: string; role: string }[];
}
interface ErrorBody {
  error: string;
  code: string;
  field?: string;
  reason?: string;
}

describe('POST /phone-number/validate', () => {
  let t: TestApp;
  let a: Account;
  beforeAll(async () => {
    t = await startTestApp();
    a = await registerUser(t);
  });
  afterAll(() => t.close());

  const validate = (payload: unknown, token: string | null = a.token) =>
    t.request({ method: 'POST', url: '/phone-number/validate', payload: payload as Record<string, unknown>, token: token ?? undefined });

  async function check(number: string, country?: string): Promise<PhoneCheck> {
    const res = await validate(country === undefined ? { number } : { number, country });
    expect(res.statusCode).toBe(200);
    return res.json<Envelope<PhoneCheck>>().data;
  }

  it('normalises a valid international number and names its country and line type', async () => {
    expect(await check('+44 20 7946 0958')).toEqual({
      valid: true,
      possible: true,
      e164: '+442079460958',
      international: '+44 20 7946 0958',
      national: '020 7946 0958',
      country: 'GB',
      calling_code: '44',
      type: 'FIXED_LINE',
      extension: null,
    });
    expect(await check('+33 6 12 34 56 78')).toMatchObject({ valid: true, e164: '+33612345678', country: 'FR', type: 'MOBILE' });
  });

  it('reads a national number in the country given (any case), as people write it', async () => {
    expect(await check('(201) 555-0123', 'us')).toMatchObject({
      valid: true,
      e164: '+12015550123',
      international: '+1 201 555 0123',
      national: '(201) 555-0123',
      country: 'US',
      calling_code: '1',
      type: 'FIXED_LINE_OR_MOBILE',
    });
    // An international number ignores the country asked with: the answer names the number's own.
    expect(await check('+33 6 12 34 56 78', 'US')).toMatchObject({ valid: true, country: 'FR' });
  });

  it('keeps an extension apart', async () => {
    expect(await check('+1 212 555 0100 ext. 12')).toMatchObject({ valid: true, e164: '+12125550100', extension: '12', international: '+1 212 555 0100 ext. 12' });
  });

  it('a non-geographic number has a calling code and no country', async () => {
    expect(await check('+800 1234 5678')).toMatchObject({ valid: true, country: null, calling_code: '800', type: 'TOLL_FREE' });
  });

  it.each([
    ['abc', undefined, 'NOT_A_NUMBER'],
    ['', undefined, 'NOT_A_NUMBER'],
    ['2015550123', undefined, 'INVALID_COUNTRY'],
    ['2015550123', 'ZZ', 'INVALID_COUNTRY'],
    ['+999 1234567', undefined, 'INVALID_COUNTRY'],
    ['1', 'GB', 'TOO_SHORT'],
    ['+44 12', undefined, 'TOO_SHORT'],
    ['+44 2079 4609 5899 9999', undefined, 'TOO_LONG'],
    ['020 7946', 'GB', 'INVALID_NUMBER'],
  ])('%j (country %s) is not valid: %s, and not an error', async (number, country, reason) => {
    const answer = await check(number, country);
    expect(answer).toMatchObject({ valid: false, e164: null, international: null, national: null, type: null, reason });
  });

  it('a number of a possible length but in no numbering plan: possible, not valid, its calling code known', async () => {
    expect(await check('+44 0000000000')).toMatchObject({ valid: false, possible: true, calling_code: '44', reason: 'INVALID_NUMBER' });
  });

  it.each([
    [{ number: 12345 }, 'number'],
    [{ number: null }, 'number'],
    [{}, 'number'],
    [{ number: '1'.repeat(65) }, 'number'],
    [{ number: '+44 20 7946 0958', country: 'GBR' }, 'country'],
    [{ number: '+44 20 7946 0958', country: 'G1' }, 'country'],
    [{ number: '+44 20 7946 0958', country: 44 }, 'country'],
    [{ number: '+44 20 7946 0958', extra: true }, 'extra'],
  ])('malformed input %j is a 400 naming %s', async (payload, field) => {
    const res = await validate(payload);
    expect(res.statusCode).toBe(400);
    expect(res.json<ErrorBody>().field).toBe(field);
  });

  it('needs a signed-in user', async () => {
    expect((await validate({ number: '+44 20 7946 0958' }, null)).statusCode).toBe(401);
  });
});

describe.each(dialects)('the account phone number on %s', (dialect) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ dialect });
  });
  afterAll(() => t.close());

  const me = (who: Account) => t.request({ method: 'GET', url: '/auth/me', token: who.token });
  /** The account as GET /auth/me answers it (issue #27 added the admin and password flags; the first account is the instance admin). */
  const account = (who: Account) => ({ ...who.user, is_instance_admin: expect.any(Boolean) as unknown as boolean, must_change_password: false, has_password: true, locale: null });
  const patch = (who: Account, payload: Record<string, unknown>) => t.request({ method: 'PATCH', url: '/auth/me', token: who.token, payload });

  it('a new account has none', async () => {
    const a = await registerUser(t, { name: 'Phone Less' });
    const res = await me(a);
    expect(res.statusCode).toBe(200);
    expect(res.json<Me>()).toEqual({ user: { ...account(a), phone: null }, workspaces: a.workspaces });
  });

  it('PATCH stores the number in E.164, answers like GET /auth/me, and null removes it', async () => {
    const a = await registerUser(t);
    const set = await patch(a, { phone: '+44 (0)20 7946-0958' });
    expect(set.statusCode).toBe(200);
    expect(set.json<Me>()).toEqual({ user: { ...account(a), phone: '+442079460958' }, workspaces: a.workspaces });
    expect((await me(a)).json<Me>().user.phone).toBe('+442079460958');

    const cleared = await patch(a, { phone: null });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json<Me>().user.phone).toBeNull();
    expect((await me(a)).json<Me>().user.phone).toBeNull();
  });

  it('only the fields sent change; the name too', async () => {
    const a = await registerUser(t);
    await patch(a, { phone: '+33 6 12 34 56 78' });
    const renamed = await patch(a, { name: 'New Name' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json<Me>().user).toEqual({ ...account(a), name: 'New Name', phone: '+33612345678' });
    const nothing = await patch(a, {});
    expect(nothing.json<Me>().user).toEqual({ ...account(a), name: 'New Name', phone: '+33612345678' });
    // The session sees the new name at once (the user is read per request).
    const login = await t.request({ method: 'POST', url: '/auth/login', payload: { email: a.user.email, password: a.password } });
    expect(login.json<{ user: { name: string } }>().user.name).toBe('New Name');
  });

  it.each([
    ['020 7946 0958', 'INVALID_COUNTRY'],
    ['+44 12', 'TOO_SHORT'],
    ['+44 0000000000', 'INVALID_NUMBER'],
    ['not a phone', 'NOT_A_NUMBER'],
    ['', 'NOT_A_NUMBER'],
    ['+1 212 555 0100 ext. 12', 'HAS_EXTENSION'],
  ])('an invalid phone %j is a 400 naming body.phone with the reason %s, and nothing changes', async (phone, reason) => {
    const a = await registerUser(t);
    await patch(a, { phone: '+33 6 12 34 56 78' });
    const res = await patch(a, { phone, name: 'Not Applied' });
    expect(res.statusCode).toBe(400);
    const body = res.json<ErrorBody>();
    expect(body).toMatchObject({ code: 'VALIDATION_ERROR', field: 'phone', reason });
    expect(body.error).toMatch(/^body\.phone /);
    expect((await me(a)).json<Me>().user).toEqual({ ...account(a), phone: '+33612345678' });
  });

  it.each([
    [{ phone: 12345 }, 'phone'],
    [{ phone: 'x'.repeat(65) }, 'phone'],
    [{ name: '' }, 'name'],
    [{ name: 'bad\u0007name' }, 'name'],
    [{ email: 'other@example.test' }, 'email'],
  ])('malformed %j is a 400 naming %s', async (payload, field) => {
    const a = await registerUser(t);
    const res = await patch(a, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json<ErrorBody>().field).toBe(field);
  });

  it('changes only the caller\'s own account, and needs a token', async () => {
    const a = await registerUser(t);
    const b = await registerUser(t);
    await patch(a, { phone: '+44 20 7946 0958' });
    expect((await me(b)).json<Me>().user.phone).toBeNull();
    expect((await t.request({ method: 'PATCH', url: '/auth/me', payload: { phone: null } })).statusCode).toBe(401);
  });
});
