import { getCurrentScope, onScopeDispose, reactive } from 'vue';
import { conversionsApi, type ConversionsApi, type Requested } from '../api/conversions';
import { ApiError } from '../api/http';
import type { Conversion, ConvertImageRequest, ConvertVideoRequest } from '../api/types';
import { fieldOf, isFinished, type ConvertField } from '../convert/options';
import { translate } from '../i18n';
import { errorText } from '../stores/toasts';
import { pollWithBackoff, type Backoff } from '../util/backoff';

/**
 * A conversion's status is read every second, then every two: the progress bar follows ffmpeg
 * closely without a request storm. After half an hour of reads the page stops asking (the
 * conversion goes on; its result appears in the library).
 */
export const CONVERSION_BACKOFF: Backoff = { firstMs: 1000, maxMs: 2000, limitMs: 30 * 60_000 };

/** idle: nothing asked; slow: still not finished when the reads stopped. */
export type ConversionPhase = 'idle' | 'submitting' | 'running' | 'succeeded' | 'failed' | 'canceled' | 'slow';

export interface ConversionState {
  phase: ConversionPhase;
  conversion: Conversion | null;
  /** Why the request was refused (the API's words) or the conversion failed. */
  error: string | null;
  /** The form field a refusal names (400 `field`, or the format of a 422). */
  field: ConvertField | null;
  /** The server answered 200: the same conversion had been asked for before (a double click, another tab, a colleague). */
  deduplicated: boolean;
  canceling: boolean;
}

export type ConvertRequest = { kind: 'image'; body: ConvertImageRequest } | { kind: 'video'; body: ConvertVideoRequest };

/**
 * One conversion of the asset page at a time (issue #15): POST /convert/image or /convert/video,
 * then GET /convert/status/:id until it succeeded, failed or was canceled. It lives in the page,
 * not in the dialog, so closing the dialog leaves it running. `onFinished` is called once when
 * the conversion ends (the page then shows the new version, or offers the new asset).
 */
export function useConversion(onFinished: (conversion: Conversion) => void, options: { api?: ConversionsApi; backoff?: Backoff } = {}) {
  const api = options.api ?? conversionsApi;
  const state = reactive<ConversionState>({ phase: 'idle', conversion: null, error: null, field: null, deduplicated: false, canceling: false });
  let poll: { stop: () => void } | undefined;

  /** Takes a fresh read; true once the conversion is over. */
  function update(conversion: Conversion): boolean {
    const wasOver = state.conversion?.id === conversion.id && isFinished(state.conversion);
    state.conversion = conversion;
    if (!isFinished(conversion)) return false;
    state.phase = conversion.status === 'succeeded' ? 'succeeded' : conversion.status === 'failed' ? 'failed' : 'canceled';
    state.error = conversion.status === 'failed' ? (conversion.error ?? translate('convert.status.failed')) : null;
    poll?.stop();
    if (!wasOver) onFinished(conversion);
    return true;
  }

  async function follow(conversion: Conversion): Promise<void> {
    poll?.stop();
    state.phase = 'running';
    if (update(conversion)) return;
    const mine = pollWithBackoff(async () => {
      try {
        return update(await api.get(conversion.id));
      } catch (err) {
        // Gone (its workspace left, or the source deleted with it): nothing more to wait for.
        if (err instanceof ApiError && err.status === 404) {
          Object.assign(state, { phase: 'failed', error: errorText(err) });
          return true;
        }
        throw err;
      }
    }, options.backoff ?? CONVERSION_BACKOFF);
    poll = mine;
    if ((await mine.outcome) === 'gave-up' && state.phase === 'running') state.phase = 'slow';
  }

  async function submit(request: ConvertRequest): Promise<void> {
    poll?.stop();
    Object.assign(state, { phase: 'submitting', conversion: null, error: null, field: null, deduplicated: false, canceling: false });
    let answer: Requested;
    try {
      answer = request.kind === 'image' ? await api.image(request.body) : await api.video(request.body);
    } catch (err) {
      Object.assign(state, { phase: 'idle', error: errorText(err), field: fieldOf(err) });
      return;
    }
    state.deduplicated = !answer.created;
    await follow(answer.conversion);
  }

  /** Shows a conversion started elsewhere (an earlier visit of the page, another tab) and follows it. */
  async function resume(conversion: Conversion): Promise<void> {
    if (state.phase !== 'idle') return;
    Object.assign(state, { error: null, field: null, deduplicated: false, canceling: false });
    await follow(conversion);
  }

  async function cancel(): Promise<void> {
    const current = state.conversion;
    if (!current || isFinished(current)) return;
    state.canceling = true;
    try {
      update(await api.cancel(current.id));
    } catch (err) {
      // 409: it finished meanwhile; show how.
      if (err instanceof ApiError && err.status === 409) update(await api.get(current.id).catch(() => current));
      else state.error = errorText(err);
    } finally {
      state.canceling = false;
    }
  }

  /** Forgets the conversion (a new one is asked for, or another asset is shown); reads in flight stop. */
  function reset(): void {
    poll?.stop();
    Object.assign(state, { phase: 'idle', conversion: null, error: null, field: null, deduplicated: false, canceling: false });
  }

  if (getCurrentScope()) onScopeDispose(() => poll?.stop());
  return { state, submit, resume, cancel, reset };
}

export type ConversionJob = ReturnType<typeof useConversion>;
