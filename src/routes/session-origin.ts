import type { FastifyRequest } from 'fastify';
import type { SessionOrigin } from '../repositories/sessions.js';

/** The longest User-Agent kept with a session. */
const MAX_UA = 512;

/** Where a sign-in comes from, kept with its session for the user's list of sessions (issue #27). */
export function sessionOrigin(req: FastifyRequest): SessionOrigin {
  const ua = req.headers['user-agent'];
  return { ip: req.ip, userAgent: typeof ua === 'string' ? ua.slice(0, MAX_UA) : null };
}
