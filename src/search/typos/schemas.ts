import { Type, type Static } from 'typebox';
import { DEFAULT_TYPOS, type TypoOptions } from './options.js';

/**
 * Typo tolerance parameters of a search (issue #27), with Typesense's names and defaults. They are members of
 * `commonSearchParams` (POST /search-engine/search) and of the one-collection helper bodies.
 */
export const TYPO_PARAMS = {
  num_typos: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 2,
      default: DEFAULT_TYPOS.numTypos,
      description:
        'Most edits (insertion, deletion, substitution, or two neighbouring letters swapped) a query word may differ by from a ' +
        'word of the document. 0 turns typo tolerance off. Typo candidates are whole words of the documents of the searched ' +
        'workspaces (3 to 32 characters, no digits); a query word with a digit is matched as typed.',
    }),
  ),
  min_len_1typo: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 256, default: DEFAULT_TYPOS.minLen1Typo, description: 'Query words of at least this many characters may have 1 typo' }),
  ),
  min_len_2typo: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 256, default: DEFAULT_TYPOS.minLen2Typo, description: 'Query words of at least this many characters may have 2 typos' }),
  ),
  typo_tokens_threshold: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      default: DEFAULT_TYPOS.tokensThreshold,
      description:
        'Words are corrected only when the query as typed finds fewer documents than this (default 1: only when it finds none; ' +
        '0: never). The corrected query still finds the exact matches, ranked before those found through a typo.',
    }),
  ),
};

type TypoParams = Static<ReturnType<typeof Type.Object<typeof TYPO_PARAMS>>>;

/** The typo options of a request, defaults filled in. */
export function typosAsked(params: TypoParams | undefined): TypoOptions {
  return {
    numTypos: params?.num_typos ?? DEFAULT_TYPOS.numTypos,
    minLen1Typo: params?.min_len_1typo ?? DEFAULT_TYPOS.minLen1Typo,
    minLen2Typo: params?.min_len_2typo ?? DEFAULT_TYPOS.minLen2Typo,
    tokensThreshold: params?.typo_tokens_threshold ?? DEFAULT_TYPOS.tokensThreshold,
  };
}
