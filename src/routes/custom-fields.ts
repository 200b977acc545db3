import type { FastifyPluginCallbackTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Envelope, ErrorBody, IdParams, ok } from '../http/schemas.js';
import {
  FieldCreateBody,
  FieldDeleted,
  FieldDeleteQuery,
  FieldListQuery,
  FieldPatchBody,
  FieldSchema,
  OptionCreateBody,
  OptionMergeBody,
  OptionMerged,
  OptionParams,
  OptionPatchBody,
} from '../contracts/custom-fields.js';
import type { FieldService } from '../services/custom-fields/field-service.js';

const tags = ['fields'];
const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody };
const NOT_VISIBLE = 'A field (or option) that does not exist, was deleted or belongs to a workspace the caller is not a member of answers 404 alike.';
const ADMINS = 'Workspace admins only (403 FORBIDDEN for managers and viewers).';

/** Custom metadata (issue #30, docs/features/custom-metadata.md): the workspace's field definitions and vocabularies. */
export const customFieldRoutes: FastifyPluginCallbackTypebox<{ fields: FieldService }> = (app, { fields }, done) => {
  app.get(
    '/dam/fields',
    {
      schema: {
        tags,
        summary: "The workspace's custom fields, in their order (viewers and up)",
        description: 'Retired fields only with include_retired=true; deleted fields never. Each select or multi_select field carries its vocabulary (options, parents before children).',
        querystring: FieldListQuery,
        response: { 200: Envelope(Type.Array(FieldSchema)), ...errors },
      },
    },
    async (req) => ok(await fields.list(req.caller, req.query)),
  );

  app.post(
    '/dam/fields',
    {
      config: { idempotent: true },
      schema: {
        tags,
        summary: 'Define a custom field',
        description:
          `${ADMINS} The key is stable: unique in the workspace and never given again, even after the field is deleted (409 FIELD_KEY_TAKEN). ` +
          'min, max and decimals belong to number fields, options to select and multi_select (400 otherwise). The field goes last. ' +
          'A workspace holds at most 500 fields; a field at most 10,000 options.',
        body: FieldCreateBody,
        response: { 201: Envelope(FieldSchema), ...errors },
      },
    },
    async (req, reply) => reply.status(201).send(ok(await fields.create(req.caller, req.body))),
  );

  app.get(
    '/dam/fields/:id',
    { schema: { tags, summary: 'One custom field (viewers and up)', description: NOT_VISIBLE, params: IdParams, response: { 200: Envelope(FieldSchema), ...errors } } },
    async (req) => ok(await fields.get(req.caller, req.params.id)),
  );

  app.patch(
    '/dam/fields/:id',
    {
      schema: {
        tags,
        summary: 'Rename, reorder, hide, retire or change a custom field',
        description:
          `${ADMINS} The key never changes. A new type is taken only when every stored value converts (text kinds into each other when the ` +
          'text fits, numbers and booleans into text, dates into datetimes, select into multi_select and back when one option is set); ' +
          'otherwise 409 FIELD_TYPE_CONFLICT with values and not_converting, and nothing changes. Leaving select types drops the ' +
          'vocabulary. retired: true keeps the values and refuses new ones; position moves the field, the others close up. ' +
          NOT_VISIBLE,
        params: IdParams,
        body: FieldPatchBody,
        response: { 200: Envelope(FieldSchema), ...errors },
      },
    },
    async (req) => ok(await fields.update(req.caller, req.params.id, req.body)),
  );

  app.delete(
    '/dam/fields/:id',
    {
      schema: {
        tags,
        summary: 'Delete a custom field and all its values',
        description:
          `${ADMINS} Only with confirm=<the field's key>: otherwise 409 CONFIRMATION_REQUIRED, with values (how many would be deleted) ` +
          'and confirm (the key to send), and nothing changes. Retiring (PATCH retired: true) hides a field and keeps its values. ' +
          'The key stays taken. ' +
          NOT_VISIBLE,
        params: IdParams,
        querystring: FieldDeleteQuery,
        response: { 200: Envelope(FieldDeleted), ...errors },
      },
    },
    async (req) => ok(await fields.remove(req.caller, req.params.id, req.query)),
  );

  app.post(
    '/dam/fields/:id/options',
    {
      schema: {
        tags,
        summary: "Add an option to a select or multi_select field's vocabulary",
        description:
          `${ADMINS} Labels are unique among siblings (case-insensitive); parent_id puts it below another option (a tree: Region → ` +
          'Country → City). Answers the field. 400 for a field of another type. ' +
          NOT_VISIBLE,
        params: IdParams,
        body: OptionCreateBody,
        response: { 201: Envelope(FieldSchema), ...errors },
      },
    },
    async (req, reply) => reply.status(201).send(ok(await fields.addOption(req.caller, req.params.id, req.body))),
  );

  app.patch(
    '/dam/fields/:id/options/:optionId',
    {
      schema: {
        tags,
        summary: 'Rename, move or deprecate an option',
        description:
          `${ADMINS} deprecated: true keeps the option where it is set and no longer accepts it as a new value. parent_id may not be ` +
          'the option or one below it (400). Answers the field. ' +
          NOT_VISIBLE,
        params: OptionParams,
        body: OptionPatchBody,
        response: { 200: Envelope(FieldSchema), ...errors },
      },
    },
    async (req) => ok(await fields.updateOption(req.caller, req.params.id, req.params.optionId, req.body)),
  );

  app.post(
    '/dam/fields/:id/options/:optionId/merge',
    {
      schema: {
        tags,
        summary: 'Merge an option into another: its values and children move there, and it goes',
        description:
          `${ADMINS} In one transaction. A target below the merged option is 400. Answers the field and how many values moved. ` +
          NOT_VISIBLE,
        params: OptionParams,
        body: OptionMergeBody,
        response: { 200: Envelope(OptionMerged), ...errors },
      },
    },
    async (req) => ok(await fields.mergeOption(req.caller, req.params.id, req.params.optionId, req.body.into)),
  );

  done();
};
