/**
 * The shape English gives the other languages: the same keys, nested the same way, every leaf a string.
 * `satisfies DeepStringShape<…>` makes a missing or extra key a type error (web/test/i18n-catalogues.test.ts
 * checks the same, and the placeholders, at test time).
 */
export type DeepStringShape<T> = { [K in keyof T]: T[K] extends string ? string : DeepStringShape<T[K]> };
