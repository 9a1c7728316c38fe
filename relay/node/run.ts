/**
 * Runs the Node bridge as a process: validates PORT/HOST and the policy
 * variables, prints the listening address, and stops cleanly on SIGINT or
 * SIGTERM. Shared by `relay/node/main.ts`, `relay/cli.ts` and `wfcli relay`.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isRelayPolicyError, RelayPolicyError } from '../core/index.js';
import { DEFAULT_HOST, DEFAULT_PORT, startNodeBridge, type NodeBridge } from './server.js';

export interface RunOptions {
  /** Overrides PORT. */
  readonly port?: string | undefined;
  /** Overrides HOST. */
  readonly host?: string | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout?: (text: string) => void;
  readonly stderr?: (text: string) => void;
  /** Resolves when the process should stop; default: the first SIGINT or SIGTERM. */
  readonly stopSignal?: Promise<unknown>;
  /** Called once listening (tests). */
  readonly onListening?: (bridge: NodeBridge) => void;
}

/** PORT: an integer 0–65535 (0: any free port). */
export function parsePort(raw: string | undefined, variable = 'PORT'): number {
  if (raw === undefined) return DEFAULT_PORT;
  if (/^(0|[1-9][0-9]{0,4})$/.test(raw) && Number(raw) <= 65535) return Number(raw);
  throw new RelayPolicyError(variable, raw, 'an integer port from 0 to 65535');
}

export function parseHost(raw: string | undefined, variable = 'HOST'): string {
  if (raw === undefined) return DEFAULT_HOST;
  if (raw.trim() !== '' && !/[\s/]/.test(raw)) return raw;
  throw new RelayPolicyError(variable, raw, 'a host name or IP address');
}

function signalled(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** Runs until stopped; resolves to the process exit code (0 stopped cleanly, 1 failed to start, 2 invalid configuration). */
export async function runNodeBridge(options: RunOptions): Promise<number> {
  const stdout = options.stdout ?? ((text: string) => void process.stdout.write(text));
  const stderr = options.stderr ?? ((text: string) => void process.stderr.write(text));
  let bridge: NodeBridge;
  try {
    const port = options.port === undefined ? parsePort(options.env['PORT']) : parsePort(options.port, '--port');
    const host = options.host === undefined ? parseHost(options.env['HOST']) : parseHost(options.host, '--host');
    bridge = await startNodeBridge({ port, host, env: options.env });
  } catch (error) {
    if (isRelayPolicyError(error)) {
      stderr(`relay: ${error.message}\n`);
      return 2;
    }
    stderr(`relay: cannot start: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  stdout(`relay bridge listening on ${bridge.url} (mode ${bridge.core.policy.bridgeMode})\n`);
  const { capacity } = bridge.connections();
  if (capacity < bridge.core.policy.maxConnections) {
    stderr(
      `relay: the open-file limit (${bridge.descriptors.limit}) allows ${capacity} connections, fewer than MAX_CONNECTIONS (${bridge.core.policy.maxConnections}); ` +
        'past that, idle connections are shed first (raise the limit with ulimit -n, or LimitNOFILE= under systemd)\n',
    );
  }
  options.onListening?.(bridge);
  const signal = await (options.stopSignal ?? signalled());
  stdout(`relay bridge stopping${typeof signal === 'string' ? ` (${signal})` : ''}\n`);
  await bridge.close();
  return 0;
}

/** True when the module at `metaUrl` is the script Node was started with. */
export function isMainModule(metaUrl: string): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(metaUrl));
  } catch {
    return false;
  }
}
