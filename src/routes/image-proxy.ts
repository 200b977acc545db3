import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { AppConfig } from '../config.js';
import { addressKey } from '../domain/client-address.js';
import { limitCheck } from '../http/rate-limits.js';
import { Envelope, ErrorBody, ok } from '../http/schemas.js';
import { PROXY_FORMATS, PROXY_PATH } from '../media/proxy-links.js';
import { PROXY_MAX_PIXELS, type ImageProxyService, type ProxiedImage } from '../services/image-proxy-service.js';

const MAX_EDGE = 4096;

const Params = {
  // The URL's rules are the fetcher's (one place): anything else is 400 PROXY_TARGET_FORBIDDEN.
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description: 'The image: an absolute http or https URL (ports 80 and 443 unless the instance allows more), without credentials',
  }),
  w: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_EDGE, description: 'Largest width in pixels (the image is fit inside w x h, never enlarged)' })),
  h: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_EDGE, description: 'Largest height in pixels' })),
  format: Type.Optional(
    Type.Union(
      PROXY_FORMATS.map((f) => Type.Literal(f)),
      { description: 'Output format; without it a resized image keeps its format (JPEG, PNG, WebP, AVIF; others become PNG)' },
    ),
  ),
};

const SignedUrl = Type.Object({
  url: Type.String({ description: 'The proxy URL with its signature, for an <img> src; absolute, on DAM_PUBLIC_URL' }),
  expires_at: Type.Integer({ description: 'Unix seconds after which the URL answers 403 URL_EXPIRED' }),
});

const FETCH_RULES =
  'The server fetches the URL itself, refusing with 400 PROXY_TARGET_FORBIDDEN any URL that is not http(s), names a port ' +
  'other than 80/443 (DAM_PROXY_PORTS), carries credentials, or whose host is or resolves to a non-public address ' +
  '(loopback, private, link-local, carrier-grade NAT, unspecified, multicast, reserved, unique-local IPv6, and the ' +
  'IPv4-mapped and translated IPv6 forms of those); every redirect (at most 3) is checked the same way. The answer ' +
  'must say image/* and its bytes must be a raster image: otherwise 415 PROXY_NOT_AN_IMAGE (SVG is always refused). ' +
  `Over DAM_PROXY_MAX_BYTES, or over ${PROXY_MAX_PIXELS / 1_000_000} megapixels when resizing: 413 PROXY_IMAGE_TOO_LARGE. ` +
  'Unreachable, slower than DAM_PROXY_TIMEOUT, a non-2xx answer or too many redirects: 502 PROXY_FETCH_FAILED. ' +
  'No cookies or credentials are sent upstream and none of the upstream headers are passed on.';

function sendImage(reply: FastifyReply, image: ProxiedImage, scope: 'private' | 'public') {
  return reply
    .header('content-type', image.contentType)
    .header('cache-control', `${scope}, max-age=${image.maxAge}`)
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "default-src 'none'")
    .send(image.body);
}

/** issue #13: the image proxy and its signed URLs (src/services/image-proxy-service.ts, src/fetcher/). */
export const imageProxyRoutes: FastifyPluginAsyncTypebox<{ imageProxy: ImageProxyService; config: AppConfig }> = async (
  app,
  { imageProxy, config },
) => {
  const tags = ['image-proxy'];
  const window = { max: config.proxy.rateLimit, timeWindow: 60_000 };
  const perUser = limitCheck(
    app.createRateLimit({ ...window, keyGenerator: (req) => `proxy-user:${req.caller.id}` }),
    'Too many image-proxy requests for this user',
  );
  const perAddress = limitCheck(
    app.createRateLimit({ ...window, keyGenerator: (req) => `proxy-ip:${addressKey(req.ip)}` }),
    'Too many signed image-proxy requests from this address',
  );

  app.get(
    PROXY_PATH,
    {
      config: { signedUrl: true },
      preHandler: async (req, reply) => (req.caller ? perUser(req, reply) : perAddress(req, reply)),
      schema: {
        tags,
        summary: 'An outside image, fetched by the server (optionally resized or converted)',
        description:
          'With a bearer token, or without one through a URL from POST /api/image-proxy/sign (its `expires` and `signature`, ' +
          'bound to url, w, h and format: any change is 403 INVALID_SIGNATURE; after expiry 403 URL_EXPIRED). ' +
          FETCH_RULES +
          ' The answer is the image with its own Content-Type, Cache-Control, `X-Content-Type-Options: nosniff` and ' +
          "`Content-Security-Policy: default-src 'none'`. Limited to DAM_PROXY_RATE_LIMIT requests per minute per user, or " +
          'per client address for signed URLs (429 RATE_LIMITED).',
        querystring: Type.Object({
          ...Params,
          expires: Type.Optional(Type.String({ maxLength: 20, description: 'Of a signed URL' })),
          signature: Type.Optional(Type.String({ maxLength: 128, description: 'Of a signed URL; with it no bearer token is needed' })),
        }),
        response: {
          200: Type.Any({ description: 'The image (image/*)' }),
          400: ErrorBody,
          401: ErrorBody,
          403: ErrorBody,
          413: ErrorBody,
          415: ErrorBody,
          429: ErrorBody,
          502: ErrorBody,
        },
      },
    },
    async (req, reply) => {
      const { expires, signature, ...params } = req.query;
      if (req.caller) return sendImage(reply, await imageProxy.proxy(params), 'private');
      return sendImage(reply, await imageProxy.proxySigned(params, expires, signature), 'public');
    },
  );

  app.post(
    `${PROXY_PATH}/sign`,
    {
      preHandler: perUser,
      schema: {
        tags,
        summary: 'A signed image-proxy URL, usable in an <img> tag without a bearer token',
        description:
          `The URL is valid for at least DAM_PROXY_URL_TTL seconds (default 3600) and covers exactly these url, w, h and format. ` +
          'Nothing is fetched here: the rules of GET /api/image-proxy apply when the URL is used. Counted with the ' +
          'image-proxy requests of the user (DAM_PROXY_RATE_LIMIT per minute).',
        body: Type.Object(Params, { additionalProperties: false }),
        response: { 200: Envelope(SignedUrl), 400: ErrorBody, 401: ErrorBody, 429: ErrorBody },
      },
    },
    async (req) => {
      const signed = imageProxy.sign(req.body);
      return ok({ url: signed.url, expires_at: signed.expiresAt });
    },
  );
};
