import { Type } from 'typebox';
import { FACET_NAMES } from './fields.js';

/** The facet parts of the search schemas (../schemas.ts): request parameters and `facet_counts`, as Typesense names them. */

export const FacetBy = Type.String({
  maxLength: 256,
  description:
    `Fields to count values of over the whole filtered result (every page): a comma list of ${FACET_NAMES.join(', ')}, ` +
    'and fields.<key> for a custom field of the searched workspaces (options and users counted by id, with the label or name as ' +
    'value; a multi_select item counts once per option). ' +
    'Visibility values are the stored integers ("0" public); taken_year is the UTC year of the date taken. Text values count ' +
    'as filters compare them (ASCII case folded: "Beach" and "beach" are one value, shown in its first spelling in byte order). ' +
    'Documents without a value are not counted; folders and collections have no orientation, camera, creator or date taken. ' +
    'An unknown name is 400.',
});

export const MaxFacetValues = Type.Integer({
  minimum: 1,
  maximum: 100,
  default: 10,
  description: 'Values per facet field: the most frequent first, ties by value (numbers by value, text by its bytes)',
});

const FacetValue = Type.Object({
  count: Type.Integer({ description: 'Documents with this value; an estimate when sampled' }),
  highlighted: Type.String({ description: 'The value (no highlighting: facet values are not searched)' }),
  value: Type.String(),
  id: Type.Optional(Type.Integer({ description: "fields.<key> facets of select, multi_select and user fields: the option's or user's id (labels need not be unique across a tree)" })),
});

export const FacetCounts = Type.Object({
  counts: Type.Array(FacetValue, { description: 'At most max_facet_values, most frequent first' }),
  field_name: Type.String({ description: `One of ${FACET_NAMES.join(', ')} or fields.<key>, as asked` }),
  sampled: Type.Boolean({
    description:
      'true when the result has more matches than the server counts exactly (DAM_SEARCH_FACET_SAMPLE): the counts are then ' +
      'estimated from an even sample of the matches, scaled to found and rounded',
  }),
  stats: Type.Object({ total_values: Type.Integer({ description: 'Distinct values in the result (in the sample, when sampled)' }) }),
});
