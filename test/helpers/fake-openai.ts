import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import type { ImageGenConfig } from '../../src/config.js';

/**
 * A stand-in for OpenAI's Images API on 127.0.0.1, answering in its documented wire format:
 * - POST /v1/images/generations {model, prompt, n, size, response_format} with `Authorization: Bearer <key>`
 *   -> 200 {created, data: [{b64_json | url, revised_prompt}]}: real PNGs of the asked size, drawn by sharp.
 *   `response_format: "url"` (DALL·E's default) answers URLs served by this fake at GET /files/{id}.png.
 * - Errors in OpenAI's envelope {error: {message, type, param, code}}: a wrong key -> 401 invalid_api_key (whose
 *   message quotes the key's ends, as OpenAI's does); a prompt containing a word of `forbiddenWords` -> 400
 *   content_policy_violation; `outage` -> that status (500: server_error, 429: rate_limit_exceeded, 503 ...).
 */
export interface FakeOpenAI {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** `host:port` of this fake, for DAM_PROXY_ALLOW_HOSTS (its image URLs are on 127.0.0.1). */
  readonly hostPort: string;
  /** The app's `imageGen` config pointing at this fake. */
  config(overrides?: Partial<ImageGenConfig>): ImageGenConfig;
  /** When set, image requests answer this status with OpenAI's error envelope (an outage, a rate limit). */
  outage: number | null;
  /** Statuses for the next image requests, one each in order (200: answer normally); `outage` applies after them. */
  nextStatuses: number[];
  /** Milliseconds before answering an image request (for timeouts). */
  delayMs: number;
  /** Prompts containing one of these words are refused as OpenAI's safety system does. */
  forbiddenWords: string[];
  /** When set, the answer's image bytes are replaced by these (e.g. not an image). */
  answerBytes: Buffer | null;
  /** Every image request received: headers and parsed body. */
  readonly requests: { authorization: string | undefined; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'openai-processing-ms': '1', 'x-request-id': `req_${randomBytes(8).toString('hex')}` });
  res.end(JSON.stringify(body));
}

const openAiError = (res: ServerResponse, status: number, message: string, type: string, code: string | null, param: string | null = null) =>
  json(res, status, { error: { message, type, param, code } });

const COLOURS = [
  { r: 200, g: 60, b: 40 },
  { r: 40, g: 120, b: 200 },
  { r: 60, g: 170, b: 90 },
  { r: 230, g: 190, b: 50 },
];

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startFakeOpenAI(options: { apiKey?: string } = {}): Promise<FakeOpenAI> {
  const apiKey = options.apiKey ?? `sk-test-${randomBytes(18).toString('hex')}`;
  const files = new Map<string, Buffer>();
  let drawn = 0;

  const fake: FakeOpenAI = {
    baseUrl: '',
    apiKey,
    hostPort: '',
    config: () => {
      throw new Error('not listening yet');
    },
    outage: null,
    nextStatuses: [],
    delayMs: 0,
    forbiddenWords: ['forbidden'],
    answerBytes: null,
    requests: [],
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const draw = async (width: number, height: number): Promise<Buffer> => {
    if (fake.answerBytes) return fake.answerBytes;
    const background = COLOURS[drawn++ % COLOURS.length]!;
    return sharp({ create: { width, height, channels: 3, background } }).png().toBuffer();
  };

  const generate = async (req: IncomingMessage, res: ServerResponse) => {
    const authorization = req.headers.authorization;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch {
      return openAiError(res, 400, 'We could not parse the JSON body of your request.', 'invalid_request_error', null);
    }
    fake.requests.push({ authorization, body });
    if (authorization !== `Bearer ${apiKey}`) {
      const given = /^Bearer (.*)$/.exec(authorization ?? '')?.[1] ?? '';
      return openAiError(
        res,
        401,
        `Incorrect API key provided: ${given.slice(0, 8)}${'*'.repeat(10)}${given.slice(-4)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        'invalid_request_error',
        'invalid_api_key',
      );
    }
    if (fake.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, fake.delayMs));
    if (res.destroyed) return;
    const next = fake.nextStatuses.shift();
    const outage = next === undefined ? fake.outage : next === 200 ? null : next;
    if (outage === 429) return openAiError(res, 429, 'Rate limit reached for images per minute. Please try again in 12s.', 'requests', 'rate_limit_exceeded');
    if (outage !== null) return openAiError(res, outage, 'The server had an error while processing your request. Sorry about that!', 'server_error', null);
    const prompt = body.prompt;
    if (typeof prompt !== 'string' || prompt === '') return openAiError(res, 400, "Missing required parameter: 'prompt'.", 'invalid_request_error', null, 'prompt');
    if (fake.forbiddenWords.some((word) => prompt.toLowerCase().includes(word))) {
      return openAiError(
        res,
        400,
        'Your request was rejected as a result of our safety system. Your prompt may contain text that is not allowed by our safety system.',
        'invalid_request_error',
        'content_policy_violation',
      );
    }
    const size = typeof body.size === 'string' ? body.size : '1024x1024';
    const match = /^(\d{2,4})x(\d{2,4})$/.exec(size);
    if (!match) return openAiError(res, 400, `Invalid value: '${size}'. Supported values are: '1024x1024', '1024x1792', and '1792x1024'.`, 'invalid_request_error', 'invalid_value', 'size');
    const n = typeof body.n === 'number' ? body.n : 1;
    if (body.model === 'dall-e-3' && n !== 1) {
      return openAiError(res, 400, 'Invalid value for n: dall-e-3 only supports n=1.', 'invalid_request_error', 'invalid_value', 'n');
    }
    const format = body.response_format ?? 'url';
    const data = [];
    for (let i = 0; i < n; i += 1) {
      const png = await draw(Number(match[1]), Number(match[2]));
      const revised_prompt = `A detailed digital painting: ${prompt}`;
      if (format === 'b64_json') {
        data.push({ b64_json: png.toString('base64'), revised_prompt });
      } else {
        const id = randomBytes(8).toString('hex');
        files.set(id, png);
        // As OpenAI's blob URLs, signed in the query: never logged or shown by the app.
        data.push({ url: `${fake.baseUrl}/files/${id}.png?se=2099-01-01&sig=${randomBytes(12).toString('hex')}`, revised_prompt });
      }
    }
    json(res, 200, { created: Math.floor(Date.now() / 1000), data });
  };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (req.method === 'POST' && url.pathname === '/v1/images/generations') {
      generate(req, res).catch((err: unknown) => openAiError(res, 500, String(err), 'server_error', null));
      return;
    }
    const file = /^\/files\/([0-9a-f]+)\.png$/.exec(url.pathname);
    if (req.method === 'GET' && file && files.has(file[1]!)) {
      res.writeHead(200, { 'content-type': 'image/png' });
      return res.end(files.get(file[1]!));
    }
    openAiError(res, 404, `Invalid URL (${req.method} ${url.pathname})`, 'invalid_request_error', null);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  Object.assign(fake, {
    baseUrl,
    hostPort: `127.0.0.1:${port}`,
    config: (overrides: Partial<ImageGenConfig> = {}): ImageGenConfig => ({
      url: `${baseUrl}/v1`,
      apiKey,
      model: 'dall-e-3',
      dailyLimit: 100,
      timeoutMs: 10_000,
      responseFormat: 'b64_json',
      ...overrides,
    }),
  });
  return fake;
}
