import { isSupportedCountry, parsePhoneNumberWithError, ParseError, validatePhoneNumberLength, type PhoneNumber } from 'libphonenumber-js/max';

/**
 * Phone numbers (issue #13), read with libphonenumber-js and its full ("max") metadata, so
 * validity is checked against each country's number patterns and the line type is known.
 * Pure: no I/O. Both the validation endpoint and the account's `phone` use `checkPhoneNumber`.
 */

/** Why a number is not valid: libphonenumber's parse and length reasons, plus INVALID_NUMBER. */
export const PHONE_REASONS = ['NOT_A_NUMBER', 'INVALID_COUNTRY', 'TOO_SHORT', 'TOO_LONG', 'INVALID_LENGTH', 'INVALID_NUMBER'] as const;
export type PhoneReason = (typeof PHONE_REASONS)[number];

export const PHONE_TYPES = [
  'MOBILE',
  'FIXED_LINE',
  'FIXED_LINE_OR_MOBILE',
  'TOLL_FREE',
  'PREMIUM_RATE',
  'SHARED_COST',
  'VOIP',
  'PERSONAL_NUMBER',
  'PAGER',
  'UAN',
  'VOICEMAIL',
] as const;
export type PhoneType = (typeof PHONE_TYPES)[number];

export const REASON_TEXT: Record<PhoneReason, string> = {
  NOT_A_NUMBER: 'is not a phone number',
  INVALID_COUNTRY: 'has no (known) country code: write it with + and the country code',
  TOO_SHORT: 'is too short',
  TOO_LONG: 'is too long',
  INVALID_LENGTH: 'does not have a length used in its country',
  INVALID_NUMBER: 'is not a number in use in its country',
};

export interface PhoneCheck {
  valid: boolean;
  /** The length is one the country uses (libphonenumber's `isPossible`), whatever its digits. */
  possible: boolean;
  /** E.164, e.g. +442079460958; only for a valid number (so it is safe to store or dial). */
  e164: string | null;
  /** e.g. "+44 20 7946 0958" (with " ext. 12" when an extension was written); valid numbers only. */
  international: string | null;
  /** e.g. "020 7946 0958"; valid numbers only. */
  national: string | null;
  /** ISO 3166-1 alpha-2 of the number (not of the `country` asked with); null for non-geographic numbers (+800, ...). */
  country: string | null;
  /** e.g. "44"; known whenever the number could be read. */
  calling_code: string | null;
  type: PhoneType | null;
  extension: string | null;
  /** Present only when not valid. */
  reason?: PhoneReason;
}

const isPhoneType = (value: string | undefined): value is PhoneType => (PHONE_TYPES as readonly string[]).includes(value ?? '');
const isReason = (value: string | undefined): value is PhoneReason => (PHONE_REASONS as readonly string[]).includes(value ?? '');

const unreadable = (reason: PhoneReason): PhoneCheck => ({
  valid: false,
  possible: false,
  e164: null,
  international: null,
  national: null,
  country: null,
  calling_code: null,
  type: null,
  extension: null,
  reason,
});

/**
 * Reads `number` as written by a person (spaces, dashes, brackets, "ext."), in `country` when it has
 * no + prefix. A two-letter `country` libphonenumber does not know is no error: a national number
 * then answers INVALID_COUNTRY, as it does without a country; an international one ignores it.
 */
export function checkPhoneNumber(number: string, country?: string): PhoneCheck {
  const region = country?.toUpperCase();
  const defaultCountry = region && isSupportedCountry(region) ? region : undefined;
  let parsed: PhoneNumber;
  try {
    parsed = parsePhoneNumberWithError(number, defaultCountry ? { defaultCountry } : undefined);
  } catch (err) {
    if (err instanceof ParseError) return unreadable(isReason(err.message) ? err.message : 'NOT_A_NUMBER');
    throw err;
  }
  const valid = parsed.isValid();
  const type = valid ? parsed.getType() : undefined;
  const base = {
    country: parsed.country ?? null,
    calling_code: parsed.countryCallingCode,
    extension: parsed.ext ?? null,
  };
  if (valid) {
    return {
      valid,
      possible: true,
      e164: parsed.number,
      international: parsed.formatInternational(),
      national: parsed.formatNational(),
      type: isPhoneType(type) ? type : null,
      ...base,
    };
  }
  const lengthProblem = validatePhoneNumberLength(number, defaultCountry ? { defaultCountry } : undefined);
  return {
    valid,
    possible: parsed.isPossible(),
    e164: null,
    international: null,
    national: null,
    type: null,
    ...base,
    reason: isReason(lengthProblem) ? lengthProblem : 'INVALID_NUMBER',
  };
}
