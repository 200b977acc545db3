import { reactive } from 'vue';
import { errorMessage } from '../i18n/errors';

export interface Toast {
  id: number;
  kind: 'info' | 'success' | 'error';
  text: string;
}

let next = 1;
export const toasts = reactive<Toast[]>([]);

export function notify(text: string, kind: Toast['kind'] = 'info', ms = 4000): void {
  const id = next++;
  toasts.push({ id, kind, text });
  setTimeout(() => dismiss(id), ms);
}

export function dismiss(id: number): void {
  const i = toasts.findIndex((t) => t.id === id);
  if (i >= 0) toasts.splice(i, 1);
}

/** A message for any error the API layer throws, in the user's language where the code is known (i18n/errors.ts). */
export function errorText(err: unknown): string {
  return errorMessage(err);
}
