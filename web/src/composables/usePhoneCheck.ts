import { onBeforeUnmount, ref, watch, type Ref } from 'vue';
import { phoneApi } from '../api/phone';
import type { PhoneCheck } from '../api/types';
import { translate } from '../i18n';
import { errorText } from '../stores/toasts';

export type PhoneStatus =
  | { kind: 'empty' }
  | { kind: 'checking' }
  | { kind: 'valid'; check: PhoneCheck }
  | { kind: 'invalid'; check: PhoneCheck; message: string }
  | { kind: 'error'; message: string };

/** The country a number without + is read in: the region of the browser's language (en-GB -> GB), if any. */
export function browserRegion(): string | undefined {
  try {
    const region = new Intl.Locale(navigator.language).maximize().region;
    return region && /^[A-Z]{2}$/.test(region) ? region : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks `input` with POST /phone-number/validate as the user types: once typing pauses for
 * `delay` ms, the request of an earlier value aborted, so the answer shown is always the one
 * for what is in the field. A number with an extension counts as invalid (an account number is
 * stored in E.164, which cannot hold one).
 */
export function usePhoneCheck(input: Ref<string>, country: string | undefined, delay = 350): Ref<PhoneStatus> {
  const status = ref<PhoneStatus>({ kind: 'empty' });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: AbortController | undefined;

  const stop = () => {
    clearTimeout(timer);
    inFlight?.abort();
  };

  async function run(number: string): Promise<void> {
    const controller = new AbortController();
    inFlight = controller;
    try {
      const check = await phoneApi.validate(number, country, controller.signal);
      if (controller.signal.aborted) return;
      if (!check.valid) status.value = { kind: 'invalid', check, message: translate(`account.phoneReasons.${check.reason ?? 'INVALID_NUMBER'}`) };
      else if (check.extension) status.value = { kind: 'invalid', check, message: translate('account.phoneReasons.HAS_EXTENSION') };
      else status.value = { kind: 'valid', check };
    } catch (err) {
      if ((err as Error).name === 'AbortError') return;
      status.value = { kind: 'error', message: translate('account.phoneCheckFailed', { reason: errorText(err) }) };
    }
  }

  watch(
    input,
    (value) => {
      stop();
      const number = value.trim();
      if (!number) {
        status.value = { kind: 'empty' };
        return;
      }
      status.value = { kind: 'checking' };
      timer = setTimeout(() => void run(number), delay);
    },
    { immediate: true },
  );
  onBeforeUnmount(stop);
  return status;
}
