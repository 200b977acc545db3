import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '../../scripts/bench-process.mjs';

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of the test suites' own (issue #37), which they may restart and stop: the machine's 15/main
 * serves every other test and is never touched. Debian's postgresql-common tools, as root (CI runs as root):
 * `pg_createcluster <version> damfaults` once on a free port (kept and reused by later runs, started when found
 * stopped), a superuser role with a password for TCP on 127.0.0.1, and pg_ctlcluster to restart, stop and start it.
 */
export const CLUSTER_NAME = 'damfaults';
const ROLE = 'dam_faults';

export interface OwnCluster {
  version: string;
  port: number;
  /** A superuser on the cluster's `postgres` database: throwawayDatabase() creates the suites' databases from it. */
  adminUrl: string;
  /** `pg_ctlcluster ... restart` (fast shutdown: sessions are terminated, then it starts again). */
  restart(): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** Whether this machine lets a test own a cluster: root, with Debian's pg_createcluster and pg_ctlcluster. */
export function canOwnCluster(): boolean {
  return process.getuid?.() === 0 && existsSync('/usr/bin/pg_createcluster') && existsSync('/usr/bin/pg_ctlcluster') && existsSync('/usr/sbin/runuser');
}

interface Listed {
  version: string;
  name: string;
  port: number;
  online: boolean;
}

async function listClusters(): Promise<Listed[]> {
  const { stdout } = await run('pg_lsclusters', ['-h']);
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [version, name, port, status] = line.trim().split(/\s+/);
      return { version: version!, name: name!, port: Number(port), online: status === 'online' };
    });
}

/** The newest PostgreSQL major installed (/usr/lib/postgresql/<major>). */
function installedVersion(): string {
  const majors = readdirSync('/usr/lib/postgresql').filter((d) => /^\d+$/.test(d));
  if (majors.length === 0) throw new Error('no PostgreSQL server is installed under /usr/lib/postgresql');
  return majors.sort((a, b) => Number(b) - Number(a))[0]!;
}

const psql = (port: number, command: string) => run('runuser', ['-u', 'postgres', '--', 'psql', '-p', String(port), '-v', 'ON_ERROR_STOP=1', '-tAq', '-c', command]);

/** Waits until the cluster answers on TCP with the role's password (after a start or a restart). */
export async function waitForCluster(adminUrl: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('select 1');
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline) throw new Error(`PostgreSQL cluster ${CLUSTER_NAME} did not answer within ${timeoutMs} ms: ${String(err)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** Creates (first time) or finds the cluster, starts it when it is down and answers how to reach and control it. */
export async function ownCluster(): Promise<OwnCluster> {
  let found = (await listClusters()).find((c) => c.name === CLUSTER_NAME);
  if (!found) {
    const version = installedVersion();
    const port = await freePort();
    // Small: a test database of a few hundred rows. Manual start: the system's postgresql service leaves it alone.
    await run('pg_createcluster', [version, CLUSTER_NAME, '-p', String(port), '--start-conf=manual', '-o', 'shared_buffers=32MB', '-o', 'max_connections=200']);
    found = { version, name: CLUSTER_NAME, port, online: false };
  }
  const { version, port } = found;
  const ctl = async (action: string) => {
    await run('pg_ctlcluster', [version, CLUSTER_NAME, action]);
  };
  if (!found.online) await ctl('start');
  // Peer authentication as postgres over the socket; the role the suites use logs in over TCP with its password.
  for (let attempt = 0; ; attempt += 1) {
    try {
      await psql(port, 'select 1');
      break;
    } catch (err) {
      if (attempt > 100) throw err;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  await psql(port, `DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${ROLE}') THEN CREATE ROLE ${ROLE} LOGIN SUPERUSER PASSWORD '${ROLE}'; END IF; END $$`);
  const adminUrl = `postgres://${ROLE}:${ROLE}@127.0.0.1:${port}/postgres`;
  await waitForCluster(adminUrl);
  return {
    version,
    port,
    adminUrl,
    restart: () => ctl('restart'),
    stop: () => ctl('stop'),
    start: () => ctl('start'),
  };
}
