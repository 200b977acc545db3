/**
 * The few cookies this API sets (the drive OAuth binding, issue #16; a shared link's download grant, issue #28),
 * each for one path under DAM_PUBLIC_URL's: HttpOnly, SameSite=Lax (a followed link still carries it), Secure on an
 * https instance. Values are base64url or JWTs, so they need no quoting or decoding.
 */
export function pathCookie(name: string, value: string, opts: { publicUrl: string; path: string; maxAge: number }): string {
  const base = new URL(opts.publicUrl);
  const path = `${base.pathname.replace(/\/+$/, '')}${opts.path}`;
  const secure = base.protocol === 'https:' ? '; Secure' : '';
  return `${name}=${value}; Max-Age=${opts.maxAge}; Path=${path}; HttpOnly; SameSite=Lax${secure}`;
}

/** A cookie's value from a Cookie header; undefined when it is absent or empty. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}
