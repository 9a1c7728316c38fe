/**
 * A real PostgreSQL cluster for the tests of remote agents: Debian's
 * `postgresql` binaries (scripts/ensure-system-tools.sh installs them),
 * `initdb` into a fresh temporary folder, `pg_ctl -w` on a free loopback
 * port, no Unix socket. Postgres refuses to run as root, so under root (CI)
 * the cluster belongs to `nobody`; as a normal user it is the user's own.
 * `pg_ctl -w` returns once the server accepts connections: no sleeps.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface PostgresCluster {
  /** `postgres://postgres@127.0.0.1:<port>`: append a database name. */
  readonly baseUrl: string;
  readonly port: number;
  /** A URL naming `database` (created on first use by DBOS or by `createDatabase`). */
  url(database: string): string;
  createDatabase(name: string): void;
  /** Stops the server (fast shutdown: open connections are cut) and keeps the data. */
  stop(): void;
  /** Starts it again on the same port and data. */
  start(): void;
  /** Stops it and removes its folder. */
  destroy(): void;
}

/** The folder of `pg_ctl`: the newest Debian PostgreSQL, else PATH. */
export function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((name) => /^\d+$/.test(name) && existsSync(path.join(root, name, 'bin', 'pg_ctl')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return path.join(root, versions[0], 'bin');
  }
  const found = execFileSync('sh', ['-c', 'command -v pg_ctl || true'], { encoding: 'utf8' }).trim();
  if (found === '') throw new Error('PostgreSQL is not installed: run scripts/ensure-system-tools.sh (installs Debian\'s postgresql)');
  return path.dirname(found);
}

/** A loopback port nobody listens on now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no loopback port');
  return address.port;
}

const isRoot = (): boolean => process.getuid?.() === 0;

/** Runs a Postgres program as the cluster's owner. */
function runAs(bin: string, program: string, args: readonly string[]): string {
  const file = path.join(bin, program);
  const [command, argv] = isRoot() ? ['runuser', ['-u', 'nobody', '--', file, ...args]] : [file, [...args]];
  return execFileSync(command, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], cwd: '/' });
}

export interface PostgresOptions {
  /** Keep Postgres's durability settings at their defaults (fsync on): what a benchmark's figures must be measured with. */
  readonly durable?: boolean;
}

export async function startPostgres(options: PostgresOptions = {}): Promise<PostgresCluster> {
  const bin = postgresBin();
  // Under root the folder must be reachable by nobody: a private parent would stop it at the door.
  const parent = isRoot() ? '/tmp' : os.tmpdir();
  const folder = mkdtempSync(path.join(parent, 'wf-postgres-'));
  const data = path.join(folder, 'data');
  mkdirSync(data, { mode: 0o700 });
  if (isRoot()) {
    chmodSync(folder, 0o755);
    chownSync(folder, 65534, 65534);
    chownSync(data, 65534, 65534);
  }
  runAs(bin, 'initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const log = path.join(folder, 'server.log');
  // fsync off for tests: a test cluster trades crash safety for speed; a restart (pg_ctl stop -m fast) still checkpoints.
  const settings = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories= -c max_connections=200${options.durable === true ? '' : ' -c fsync=off'}`;
  const start = (): void => void runAs(bin, 'pg_ctl', ['-D', data, '-l', log, '-o', settings, '-w', '-t', '60', 'start']);
  const stop = (): void => void runAs(bin, 'pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  start();
  const baseUrl = `postgres://postgres@127.0.0.1:${port}`;
  let running = true;
  return {
    baseUrl,
    port,
    url: (database) => `${baseUrl}/${database}`,
    createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
      execFileSync(path.join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-c', `CREATE DATABASE ${name}`], { stdio: 'pipe' });
    },
    stop() {
      if (!running) return;
      stop();
      running = false;
    },
    start() {
      if (running) return;
      start();
      running = true;
    },
    destroy() {
      try {
        if (running) stop();
      } finally {
        running = false;
        rmSync(folder, { recursive: true, force: true });
      }
    },
  };
}
