import { ApiError, requestData } from './http';
import type { GenerateImageRequest, ImageGeneration } from './types';

export type ImageSize = NonNullable<GenerateImageRequest['size']>;

/** Issue #13: POST /generate-image queues a generation (202); GET /generate-image/:id tells how it goes. */
export const imageGenerationApi = {
  start: (body: GenerateImageRequest) => requestData<ImageGeneration>('POST', '/generate-image', { body }),
  get: (id: number, signal?: AbortSignal) => requestData<ImageGeneration>('GET', `/generate-image/${id}`, { signal }),
};
export type ImageGenerationApi = typeof imageGenerationApi;

/**
 * The sizes the server takes (OpenAI's image models; which one works depends on the instance's model). Their names
 * ("Square, 1024 × 1024") are the generate area's, in the page's language (GenerateImageDialog's sizeLabel).
 */
export const IMAGE_SIZES: { value: ImageSize }[] = [
  { value: '1024x1024' },
  { value: '1792x1024' },
  { value: '1024x1792' },
  { value: '1536x1024' },
  { value: '1024x1536' },
  { value: '512x512' },
  { value: '256x256' },
];
export const MAX_IMAGES = 4;
export const MAX_PROMPT = 4000;
export const MAX_NEGATIVE_PROMPT = 1000;

export const NOT_CONFIGURED = 'IMAGE_GEN_NOT_CONFIGURED';

let known: Promise<boolean> | undefined;

/**
 * Whether this instance can generate images. The API has no capabilities endpoint; both of its
 * operations answer 404 IMAGE_GEN_NOT_CONFIGURED before anything else when no provider is set up, so
 * one status read of any id tells: that code (or a server without the route) means no; an answer, or
 * the plain 404 of an id that is not the caller's, means yes. Asked once per page load; anything else
 * (network, 401, 5xx) counts as no for now and is asked again next time.
 */
export function imageGenerationAvailable(api: Pick<ImageGenerationApi, 'get'> = imageGenerationApi): Promise<boolean> {
  known ??= api.get(1).then(
    () => true,
    (err: unknown) => {
      if (err instanceof ApiError && err.status === 404) return err.code !== NOT_CONFIGURED && !err.isMissingRoute;
      known = undefined;
      return false;
    },
  );
  return known;
}

/** Remembers an answer learnt otherwise (a POST answered IMAGE_GEN_NOT_CONFIGURED); undefined forgets it (tests). */
export function setImageGenerationAvailable(value: boolean | undefined): void {
  known = value === undefined ? undefined : Promise.resolve(value);
}
