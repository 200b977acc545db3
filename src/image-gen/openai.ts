import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { ImageGenConfig } from '../config.js';
import { ImageGenRefused, ImageGenUnavailable, type GeneratedImage, type GenerateRequest, type ImageGenerator } from './types.js';

/** Provider messages are kept to this many characters in job errors. */
const MAX_REASON = 500;

/** Any text that came from the provider, with the key cut out (belt and braces: it should never be there). */
function clean(text: string, apiKey: string): string {
  const redacted = apiKey.length >= 4 ? text.split(apiKey).join('[redacted]') : text;
  return redacted.length > MAX_REASON ? `${redacted.slice(0, MAX_REASON - 1)}…` : redacted;
}

/** OpenAI's error body `{error: {message, code, type, param}}` as the client parsed it. */
function providerMessage(error: unknown): string | undefined {
  const body = error as { message?: unknown } | undefined;
  return typeof body?.message === 'string' && body.message.trim() !== '' ? body.message : undefined;
}

/**
 * The client's errors as ours. Refusals (4xx but 408, 409 and 429) fail the job at once with the
 * provider's reason; everything else is retried by the job queue. 401/403 messages are never passed
 * on: OpenAI's quotes the start and end of the key it was given.
 */
function translate(err: unknown, apiKey: string): Error {
  if (err instanceof APIConnectionTimeoutError) return new ImageGenUnavailable('The image provider did not answer in time');
  if (err instanceof APIConnectionError) return new ImageGenUnavailable('The image provider could not be reached');
  if (err instanceof APIError && typeof err.status === 'number') {
    const status = err.status;
    if (status === 401 || status === 403) {
      return new ImageGenRefused(`The image provider did not accept the configured API key (HTTP ${status})`);
    }
    if (status === 408 || status === 409 || status === 429 || status >= 500) {
      return new ImageGenUnavailable(`The image provider is unavailable (HTTP ${status})`);
    }
    const reason = providerMessage(err.error);
    const code = err.code ? ` (${err.code})` : '';
    return new ImageGenRefused(clean(reason ? `${reason}${code}` : `The image provider refused the request (HTTP ${status})${code}`, apiKey));
  }
  return new ImageGenUnavailable(clean(`The image provider's answer could not be read: ${(err as Error)?.message ?? String(err)}`, apiKey));
}

/**
 * OpenAI's Images API (`POST {baseURL}/images/generations`) through the official client. The client
 * does not retry (the job queue does, with its back-off) and does not log (its debug log would carry
 * request details). A negative prompt has no parameter in this API: it is added to the prompt as an
 * instruction, which every model of it reads.
 */
export class OpenAIImageGenerator implements ImageGenerator {
  private readonly client: OpenAI;

  constructor(private readonly config: ImageGenConfig) {
    this.client = new OpenAI({
      apiKey: config.apiKey,
      baseURL: config.url,
      // Only our config: not OPENAI_ORG_ID / OPENAI_PROJECT_ID from the environment.
      organization: null,
      project: null,
      maxRetries: 0,
      timeout: config.timeoutMs,
      logLevel: 'off',
    });
  }

  async generate(request: GenerateRequest): Promise<GeneratedImage[]> {
    const prompt = request.negative_prompt ? `${request.prompt}\n\nDo not include: ${request.negative_prompt}` : request.prompt;
    let answer: OpenAI.ImagesResponse;
    try {
      answer = await this.client.images.generate({
        model: request.model,
        prompt,
        n: request.n,
        size: request.size,
        ...(this.config.responseFormat === 'omit' ? {} : { response_format: this.config.responseFormat }),
      });
    } catch (err) {
      throw translate(err, this.config.apiKey);
    }
    const images = (Array.isArray(answer?.data) ? answer.data : []).flatMap((image): GeneratedImage[] => {
      const b64 = typeof image?.b64_json === 'string' && image.b64_json !== '' ? image.b64_json : undefined;
      const url = typeof image?.url === 'string' && image.url !== '' ? image.url : undefined;
      if (!b64 && !url) return [];
      const revised = typeof image.revised_prompt === 'string' ? image.revised_prompt : undefined;
      return [{ ...(b64 ? { b64 } : { url }), ...(revised ? { revised_prompt: revised } : {}) }];
    });
    if (images.length === 0) throw new ImageGenUnavailable('The image provider answered without an image');
    return images;
  }
}

export function createImageGenerator(config: ImageGenConfig | null): ImageGenerator | null {
  return config ? new OpenAIImageGenerator(config) : null;
}
