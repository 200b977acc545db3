import { appError, notFound } from '../errors.js';

/** seed 2.3: storage key layout {workspaceId}/digital_assets/{assetId}. */
export function assetKey(workspaceId: number, assetId: number): string {
  return `${workspaceId}/digital_assets/${assetId}`;
}

const KEY_PATTERN = /^(\d+)\/digital_assets\/(\d+)$/;

/**
 * Validates a key a client sent, before any file or bucket is touched (seed 5.3).
 * Traversal or absolute keys: 400. A key under another workspace's prefix, or
 * not of our layout: 404, as for anything the caller cannot see.
 */
export function parseAssetKey(key: string, workspaceId: number): { assetId: number } {
  if (key.includes('..') || key.startsWith('/') || key.includes('\\') || key.includes('\0')) {
    throw appError('VALIDATION_ERROR', 'key must be a relative storage key without ".." segments', { field: 'key' });
  }
  const match = KEY_PATTERN.exec(key);
  if (!match || Number(match[1]) !== workspaceId) throw notFound('Object');
  return { assetId: Number(match[2]) };
}
