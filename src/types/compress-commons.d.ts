/**
 * compress-commons 7 (the ZIP writer under archiver and zip-stream) ships no TypeScript declarations:
 * the part of its API that src/zip/zip-writer.ts uses (ZipArchiveOutputStream, ZipArchiveEntry),
 * plus the internals it overrides to choose ZIP64 at the exact format limits.
 */
declare module 'compress-commons' {
  import { Transform } from 'node:stream';

  export class ZipArchiveEntry {
    constructor(name?: string);
    /** Set by the output stream: where the entry's local header starts. */
    _offsets?: { file: number; data: number; contents: number };
    protected name: string | null;
    getName(): string;
    setName(name: string): void;
    getGeneralPurposeBit(): { useUTF8ForNames(b: boolean): void };
    getSize(): number;
    getCompressedSize(): number;
    getCrc(): number;
    setMethod(method: 0 | 8): void;
    setTime(time: Date, forceLocalTime?: boolean): void;
    setUnixMode(mode: number): void;
    isZip64(): boolean;
  }

  export class ZipArchiveOutputStream extends Transform {
    constructor(options?: { zlib?: { level?: number }; forceZip64?: boolean; forceLocalTime?: boolean });
    /** Bytes written so far (ArchiveOutputStream counts them in write()). */
    protected offset: number;
    protected _entries: ZipArchiveEntry[];
    protected _archive: { centralLength: number; centralOffset: number; processing: boolean; finish: boolean; finished: boolean };
    protected _finish(): void;
    protected _writeCentralFileHeader(entry: ZipArchiveEntry): void;
    protected _writeCentralDirectoryZip64(): void;
    protected _writeCentralDirectoryEnd(): void;
    entry(entry: ZipArchiveEntry, source: Buffer | NodeJS.ReadableStream | null, callback: (err: Error | null, entry?: ZipArchiveEntry) => void): this;
    finish(): void;
    isZip64(): boolean;
    getBytesWritten(): number;
  }
}
