/**
 * The SDK's upload helper (sdk/src/source.ts) opens a file *path* with node:fs and node:path, loaded dynamically and
 * only for a path: the web client passes Files, so that branch never runs in a browser and the build leaves those
 * modules out (web/vite.config.ts). The web's tsconfig has no Node types (no `process`, `Buffer` in page code);
 * these declare just what that branch uses.
 */
declare module 'node:fs' {
  export function openAsBlob(path: string, options?: { type?: string }): Promise<Blob>;
}
declare module 'node:path' {
  export function basename(path: string): string;
}
