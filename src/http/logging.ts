import type { FastifyServerOptions } from 'fastify';

/** Query parameters whose values never reach a log line (tokens, signatures). */
const SECRET_PARAMS = /^(access_token|token|signature|sig|x-amz-signature|x-amz-credential|x-amz-security-token|code|state)$/i;

export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const key of [...params.keys()]) if (SECRET_PARAMS.test(key)) params.set(key, '[redacted]');
  return `${url.slice(0, q)}?${params.toString()}`;
}

/**
 * pino options: requests are logged by method, redacted URL and address only;
 * headers (Authorization, cookies) and bodies (passwords) are never serialised.
 */
export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', '*.password', '*.access_token', '*.token'], censor: '[redacted]' },
    serializers: {
      req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, url: redactUrl(req.url), ip: req.ip }),
    },
  };
}
