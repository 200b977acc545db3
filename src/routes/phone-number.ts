import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { checkPhoneNumber, PHONE_REASONS, PHONE_TYPES } from '../domain/phone-numbers.js';
import { Envelope, ErrorBody, ok } from '../http/schemas.js';

const NullableText = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

const PhoneCheck = Type.Object({
  valid: Type.Boolean({ description: 'The number exists in its country\'s numbering plan' }),
  possible: Type.Boolean({ description: 'The length is one its country uses, whatever the digits' }),
  e164: NullableText('E.164, e.g. +442079460958; valid numbers only'),
  international: NullableText('e.g. "+44 20 7946 0958"; valid numbers only'),
  national: NullableText('e.g. "020 7946 0958"; valid numbers only'),
  country: NullableText('ISO 3166-1 alpha-2 country of the number; null for non-geographic numbers (+800, ...) or when unknown'),
  calling_code: NullableText('Country calling code, e.g. "44"; null when the number could not be read'),
  type: Type.Union([Type.Enum(PHONE_TYPES), Type.Null()], { description: 'Line type; valid numbers only' }),
  extension: NullableText('The extension written after the number ("ext. 12"), if any'),
  reason: Type.Optional(
    Type.Enum(PHONE_REASONS, {
        description:
          'Only when not valid. NOT_A_NUMBER: no phone number in the text; INVALID_COUNTRY: no + country code and no (known) country given, ' +
          'or an unknown country code; TOO_SHORT / TOO_LONG / INVALID_LENGTH: a length its country does not use; ' +
          'INVALID_NUMBER: the length fits but no number of its country looks like it',
    }),
  ),
});

export const phoneNumberRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/phone-number/validate',
    {
      schema: {
        tags: ['phone-number'],
        summary: 'Validate and normalise a phone number',
        description:
          'Reads a phone number as people write it (spaces, dashes, brackets, "ext.") with the full numbering-plan metadata, ' +
          'in `country` when it has no + prefix. A number that cannot be read or is not valid is not an error: it answers ' +
          '`valid: false` with a `reason`. Only a malformed request (not a string, over 64 characters, a country that is not ' +
          'two letters) is a 400. Needs a signed-in user, so the per-user rate limit applies.',
        body: Type.Object({
          number: Type.String({ maxLength: 64, description: 'The phone number as written' }),
          country: Type.Optional(
            Type.String({ minLength: 2, maxLength: 2, pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2 code to read a national number in, e.g. GB' }),
          ),
        }, { additionalProperties: false }),
        response: { 200: Envelope(PhoneCheck), 400: ErrorBody },
      },
    },
    (request) => ok(checkPhoneNumber(request.body.number, request.body.country)),
  );
};
