/**
 * The standalone relay bridge command (`node dist/relay/cli.js`, and
 * `wfcli relay`): `[--port <n>] [--host <address>]`, policy from the
 * environment (docs/relay.md). Resolves to the exit code once stopped.
 */
import { parseArgs } from 'node:util';
import { isMainModule, runNodeBridge } from './node/run.js';

export const USAGE = `usage:
  relay [--port <port>] [--host <address>]
    --port   listening port (default $PORT or 8787; 0 picks a free port)
    --host   listening address (default $HOST or 127.0.0.1, loopback only)
  Policy and limits come from environment variables: see docs/relay.md.
`;

export interface CliIo {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly stdout?: (text: string) => void;
  readonly stderr?: (text: string) => void;
  readonly stopSignal?: Promise<unknown>;
}

export async function main(argv: readonly string[], io: CliIo = {}): Promise<number> {
  const stderr = io.stderr ?? ((text: string) => void process.stderr.write(text));
  let values: { port?: string; host?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: { port: { type: 'string' }, host: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    stderr(`relay: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if (values.help === true) {
    (io.stdout ?? ((text: string) => void process.stdout.write(text)))(USAGE);
    return 0;
  }
  return runNodeBridge({
    port: values.port,
    host: values.host,
    env: io.env ?? process.env,
    stderr,
    ...(io.stdout === undefined ? {} : { stdout: io.stdout }),
    ...(io.stopSignal === undefined ? {} : { stopSignal: io.stopSignal }),
  });
}

if (isMainModule(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
