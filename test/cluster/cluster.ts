import type { ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort, startServer, stopChild } from '../../scripts/bench-process.mjs';
import { tempDir } from '../helpers/databases.js';

/** Processes and plain HTTP of the cluster suite (test/cluster/): the built server, nothing in-process. */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ENTRY = path.join(ROOT, 'dist', 'server.js');

export const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The PostgreSQL the suite needs: DAM_TEST_DATABASE_URL (or DATABASE_URL), as for `npm test`. */
export function requirePgUrl(): string {
  const url = process.env.DAM_TEST_DATABASE_URL || process.env.DATABASE_URL;
  if (!url?.startsWith('postgres')) {
    throw new Error('npm run test:cluster needs PostgreSQL: set DAM_TEST_DATABASE_URL=postgres://user:pass@host:5432/db (a role that may CREATE DATABASE)');
  }
  return url;
}

/**
 * A database of its own for this run, created beside the one `adminUrl` names and dropped (with the
 * connections of processes that died) by `drop`. A whole database rather than a schema: the
 * processes run their migrations exactly as in production, in `public`.
 */
export async function throwawayDatabase(adminUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `dam_cluster_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

export interface Node {
  role: 'api' | 'worker';
  base: string;
  child: ChildProcess;
  logs: () => string;
}

/** Starts dist/server.js in `role` on a free port, with a data dir of its own (temporary files only: the store is S3). */
export async function startNode(role: Node['role'], env: Record<string, string>, children: Set<ChildProcess>): Promise<Node> {
  const port = await freePort();
  const { child, base, logs } = await startServer({ entry: ENTRY, cwd: ROOT, dataDir: tempDir(`dam-cluster-${role}-`), port, env: { ...env, DAM_ROLE: role } }, children);
  return { role, base, child, logs };
}

export async function stopNodes(children: Set<ChildProcess>): Promise<void> {
  await Promise.all([...children].map((child) => stopChild(child, children)));
}

/** SIGKILL, as a crash or an OOM kill: no graceful shutdown, no lease given back. */
export async function killNode(node: Node, children: Set<ChildProcess>): Promise<void> {
  if (node.child.exitCode !== null || node.child.signalCode !== null) return;
  const exited = new Promise((resolve) => node.child.once('exit', resolve));
  node.child.kill('SIGKILL');
  await exited;
  children.delete(node.child);
}

export interface Reply {
  status: number;
  headers: Headers;
  bytes: Buffer;
  json<T>(): T;
}

export interface CallOptions {
  token?: string;
  json?: unknown;
  body?: RequestInit['body'];
  headers?: Record<string, string>;
}

/** One request to one process: `base` is that process's origin. */
export async function call(base: string, method: string, pathAndQuery: string, o: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  let body = o.body;
  if (o.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(o.json);
  }
  const res = await fetch(`${base}${pathAndQuery}`, { method, headers, body });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, json: <T>() => JSON.parse(bytes.toString('utf8')) as T };
}

/** Throws with the answer's body unless its status is `status`. */
export function expectStatus(reply: Reply, status: number, what: string): Reply {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status} ${reply.bytes.toString('utf8').slice(0, 500)}`);
  return reply;
}

/** Polls `probe` every 200 ms until it returns a value, or throws after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The value of a Prometheus counter sample (`name{labels} value`) of a /metrics text, 0 when absent. */
export function metricValue(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inside = line.slice(name.length + 1, line.indexOf('}'));
    if (Object.entries(labels).every(([k, v]) => inside.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}
