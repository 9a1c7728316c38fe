/** An in-memory `CliIo` for calling `main` and commands in tests: what they wrote, by stream. */
import type { CliIo } from '../../cli/command.js';

export interface CapturedIo extends CliIo {
  readonly out: () => string;
  readonly err: () => string;
}

export function captureIo(cwd: string = process.cwd(), extra: Partial<CliIo> = {}): CapturedIo {
  let out = '';
  let err = '';
  return {
    cwd,
    stdout: (text) => void (out += text),
    stderr: (text) => void (err += text),
    stderrIsTTY: false,
    ...extra,
    out: () => out,
    err: () => err,
  };
}
