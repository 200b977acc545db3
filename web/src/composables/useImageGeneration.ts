import { getCurrentScope, onScopeDispose, reactive, ref, type Ref } from 'vue';
import { ApiError } from '../api/http';
import { imageGenerationApi, imageGenerationAvailable, NOT_CONFIGURED, setImageGenerationAvailable, type ImageGenerationApi } from '../api/image-generation';
import type { GenerateImageRequest, ImageGeneration } from '../api/types';
import { translate } from '../i18n';
import { pollWithBackoff, type Backoff } from '../util/backoff';
import { formatDate } from '../util/format';
import { errorText } from '../stores/toasts';

/**
 * A generation is read after 1, 2, 4, 4, 4 … s: an image takes the provider seconds to draw, and the
 * server retries a failing provider with back-off of its own, so the reads go on for up to five minutes.
 */
export const GENERATION_BACKOFF: Backoff = { firstMs: 1000, maxMs: 4000, limitMs: 5 * 60_000 };

/** idle: nothing asked; slow: still not finished when the reads stopped (the images come anyway). */
export type GenerationPhase = 'idle' | 'submitting' | 'running' | 'succeeded' | 'failed' | 'slow';

export interface GenerationState {
  phase: GenerationPhase;
  generation: ImageGeneration | null;
  /** Why the request was refused or the generation failed, in words. */
  error: string | null;
}

/** The words of a refused request: the daily limit with the time it resets, in the reader's clock. */
export function requestErrorText(err: unknown): string {
  if (err instanceof ApiError && err.code === 'IMAGE_GEN_DAILY_LIMIT') {
    const resets = Number(err.details.resets_at);
    const when = Number.isFinite(resets) ? formatDate(resets, { weekday: 'short', hour: '2-digit', minute: '2-digit' }) : null;
    return when ? translate('generate.limitResets', { message: err.message, when }) : err.message;
  }
  if (err instanceof ApiError && err.code === NOT_CONFIGURED) return translate('generate.notConfigured');
  return errorText(err);
}

/**
 * One image generation of the library (issue #13) at a time: POST /generate-image, then its status
 * read with backoff until it succeeded or failed. `onAssets` is called each time the generation has
 * made more assets (so the grid shows them as they come) and once more at the end. It lives in the
 * library page, not in the dialog, so closing the dialog does not stop it.
 */
export function useImageGeneration(
  onAssets: (generation: ImageGeneration) => void,
  options: { api?: ImageGenerationApi; backoff?: Backoff } = {},
) {
  const api = options.api ?? imageGenerationApi;
  const state = reactive<GenerationState>({ phase: 'idle', generation: null, error: null });
  /** Whether the instance has an image provider (the Generate button is shown only then). */
  const available: Ref<boolean> = ref(false);
  let poll: { stop: () => void } | undefined;

  void imageGenerationAvailable(api).then((yes) => (available.value = yes));

  function update(generation: ImageGeneration): boolean {
    const more = generation.asset_ids.length > (state.generation?.asset_ids.length ?? 0);
    state.generation = generation;
    if (generation.status === 'succeeded') state.phase = 'succeeded';
    if (generation.status === 'failed') {
      state.phase = 'failed';
      state.error = generation.error ?? translate('generate.failedShort');
    }
    if (more || generation.status === 'succeeded' || generation.status === 'failed') onAssets(generation);
    return state.phase !== 'running';
  }

  async function submit(input: GenerateImageRequest): Promise<void> {
    poll?.stop();
    Object.assign(state, { phase: 'submitting', generation: null, error: null });
    let generation: ImageGeneration;
    try {
      generation = await api.start(input);
    } catch (err) {
      if (err instanceof ApiError && err.code === NOT_CONFIGURED) {
        setImageGenerationAvailable(false);
        available.value = false;
      }
      Object.assign(state, { phase: 'idle', error: requestErrorText(err) });
      return;
    }
    state.phase = 'running';
    if (update(generation)) return;
    const mine = pollWithBackoff(async () => {
      try {
        return update(await api.get(generation.id));
      } catch (err) {
        // The generation is gone (its workspace left, or deleted): nothing more to wait for.
        if (err instanceof ApiError && err.status === 404) {
          Object.assign(state, { phase: 'failed', error: requestErrorText(err) });
          return true;
        }
        throw err;
      }
    }, options.backoff ?? GENERATION_BACKOFF);
    poll = mine;
    if ((await mine.outcome) === 'gave-up' && state.phase === 'running') state.phase = 'slow';
  }

  /** Forgets the last generation (a new prompt); reads in flight stop. */
  function reset(): void {
    poll?.stop();
    Object.assign(state, { phase: 'idle', generation: null, error: null });
  }

  if (getCurrentScope()) onScopeDispose(() => poll?.stop());
  return { state, available, submit, reset };
}

export type ImageGenerationJob = ReturnType<typeof useImageGeneration>;
