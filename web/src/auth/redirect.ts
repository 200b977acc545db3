/** Where to go after signing in: only a path of this app, never another site (open redirect). */
export function safeRedirect(value: unknown, fallback = '/library'): string {
  // One leading slash, then no slash or backslash (protocol-relative), no control characters or backslashes at all
  // (browsers drop tabs and newlines, so "/\t/evil.example" would become "//evil.example").
  // eslint-disable-next-line no-control-regex
  if (typeof value !== 'string' || !/^\/(?![/\\])[^\\\u0000-\u001f\u007f]*$/.test(value)) return fallback;
  if (/^\/(login|register|social-login|forgot-password|reset-password)(?=[/?#]|$)/.test(value)) return fallback;
  return value;
}
