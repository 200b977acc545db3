/** The provider interface and its errors (see index.ts). */
export interface GenerateRequest {
  prompt: string;
  /** What the image should not show; how it reaches the provider is the implementation's business. */
  negative_prompt?: string;
  /** `WIDTHxHEIGHT`, e.g. 1024x1024. */
  size: string;
  /** Images asked for in this request. */
  n: number;
  model: string;
}

/** One image of an answer: its bytes as base64, or a URL to fetch them from (through src/fetcher/). */
export interface GeneratedImage {
  b64?: string;
  url?: string;
  /** The prompt the provider actually drew (dall-e-3 rewrites prompts). */
  revised_prompt?: string;
}

export interface ImageGenerator {
  /** The images, or ImageGenRefused (retrying cannot help) or ImageGenUnavailable (retrying may). */
  generate(request: GenerateRequest): Promise<GeneratedImage[]>;
}

/**
 * The provider refused the request and would refuse it again: its content policy, a parameter it
 * does not take (a size the model cannot draw), the API key. The message is the provider's reason
 * where it is safe to show (never for authentication failures, whose messages echo part of the key).
 */
export class ImageGenRefused extends Error {
  override readonly name = 'ImageGenRefused';
}

/** The provider could not answer now: unreachable, timed out, rate limited, 5xx. Worth retrying. */
export class ImageGenUnavailable extends Error {
  override readonly name = 'ImageGenUnavailable';
}
