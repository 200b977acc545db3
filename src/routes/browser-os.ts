import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { describeClient } from '../domain/browser-os.js';
import { HIGH_ENTROPY_HINTS, LOW_ENTROPY_HINTS, readClientHints } from '../domain/client-hints.js';
import { Envelope, HeadersTooLarge, ok } from '../http/schemas.js';

const Text = (description: string) => Type.Union([Type.String(), Type.Null()], { description });
const NameVersion = (what: string, examples: string) =>
  Type.Object({
    name: Text(`The ${what}'s name (${examples}); null when unknown`),
    version: Text(`The ${what}'s version as known; null when unknown`),
  });

const BrowserOs = Type.Object({
  browser: NameVersion('browser', 'Chrome, Edge, Firefox, Safari, Mobile Safari, Opera, ...'),
  engine: NameVersion('rendering engine', 'Blink, Gecko, WebKit, ...'),
  os: NameVersion('operating system', 'Windows, Mac OS, iOS, Android, Linux, Chromium OS, ...'),
  device: Type.Object({
    type: Text(
      'mobile, tablet, console, smarttv, wearable, xr, embedded; desktop when none of those and the system is a desktop one ' +
        '(Windows, Mac OS, Linux, Chromium OS, BSD, ...); null otherwise (bots and unknown clients included)',
    ),
    vendor: Text('e.g. Apple, Samsung; null when unknown'),
    model: Text('e.g. iPhone, SM-S918B, Pixel 8; null when unknown'),
  }),
  is_bot: Type.Boolean({ description: 'The User-Agent is a known crawler, monitor or HTTP library' }),
});

const HINTS = [...LOW_ENTROPY_HINTS, ...HIGH_ENTROPY_HINTS];

/** Adds names to Vary without dropping those another part of the app set (CORS adds Origin). */
function vary(reply: FastifyReply, names: string[]): void {
  const current = reply.getHeader('vary');
  const existing = current === undefined ? [] : String(current).split(',').map((s) => s.trim()).filter(Boolean);
  const seen = new Set(existing.map((s) => s.toLowerCase()));
  reply.header('vary', [...existing, ...names.filter((n) => !seen.has(n.toLowerCase()))].join(', '));
}

export const browserOsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/api/browser-os',
    {
      config: { public: true },
      schema: {
        tags: ['general'],
        summary: 'The browser, engine, operating system and device of the caller',
        description:
          'Read from the User-Agent header and, where the browser sends them, the User-Agent Client Hints, which win over ' +
          'the User-Agent (Chromium freezes parts of it: Windows 11 says Windows NT 10.0). Sec-CH-UA gives the browser and ' +
          'its major version (GREASE brands ignored), Sec-CH-UA-Full-Version-List the full version, Sec-CH-UA-Platform and ' +
          '-Platform-Version the system (Windows platform version 13 or above is Windows 11), Sec-CH-UA-Mobile a mobile ' +
          'device, Sec-CH-UA-Model the model. The answer asks for the high-entropy hints with Accept-CH (browsers send them ' +
          'on later requests to this origin, over HTTPS), varies on every header it reads and is not stored by caches. ' +
          'Only the first 1,024 characters of the User-Agent are read; a hint header longer than that, or not a valid ' +
          'structured field, is ignored. No sign-in needed.',
        response: { 200: Envelope(BrowserOs), 431: HeadersTooLarge },
      },
    },
    async (request, reply) => {
      const answer = describeClient(request.headers['user-agent'], readClientHints(request.headers));
      reply.header('accept-ch', HIGH_ENTROPY_HINTS.join(', '));
      // A navigation to this URL in Chromium is retried at once with the hints (over HTTPS).
      reply.header('critical-ch', HIGH_ENTROPY_HINTS.join(', '));
      vary(reply, ['User-Agent', ...HINTS]);
      reply.header('cache-control', 'private, no-store');
      return ok(answer);
    },
  );
};
