// Types of bench-process.mjs, for the TypeScript suites that start the built server as a child
// process too (test/cluster/, test/backup.test.ts).
import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';

export function freePort(): Promise<number>;
export function tail(stream: Readable | null | undefined, limit?: number): { text: string };
export function stopChild(child: ChildProcess, children: Set<ChildProcess>, graceMs?: number): Promise<void>;
export function startServer(
  options: { entry: string; cwd: string; dataDir: string; port: number; env?: Record<string, string> },
  children: Set<ChildProcess>,
): Promise<{ child: ChildProcess; base: string; logs: () => string }>;
export function procMemory(pid: number): { rss: number; hwm: number } | undefined;
export function resetPeak(pid: number): boolean;
