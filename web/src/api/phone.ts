import { requestData } from './http';
import type { PhoneCheck } from './types';

export const phoneApi = {
  /** A number that is not valid is an answer (`valid: false` with a reason), not an error. */
  validate: (number: string, country: string | undefined, signal?: AbortSignal) =>
    requestData<PhoneCheck>('POST', '/phone-number/validate', { body: country ? { number, country } : { number }, signal }),
};
