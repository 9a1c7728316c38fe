/**
 * Where a command may write what the user points it at (`report`, `export`,
 * `bundle` `--output`), issue 35: nothing there yet, or something the command
 * replaces as a user replaces a file. A device, a FIFO or a socket is never
 * replaced (as root, `--output /dev/null` used to turn /dev/null into a
 * regular file), nor is what a link names when it is one of those. The
 * commands that write one file take `--output -` for standard output.
 */
import { lstatSync, statSync, type Stats } from 'node:fs';
import { WorkflowError } from '../kernel/errors.js';
import { kindOf } from '../kernel/store/safe-fs.js';

/** `--output -`: standard output instead of a file. */
export const STDOUT_OUTPUT = '-';

function statOf(read: () => Stats): Stats | undefined {
  try {
    return read();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Refuses an existing `path` the command must not replace: anything but a
 * regular file (`file`), or a directory or regular file (`directory`, the
 * bundle's folder), judged by what a link there names. A dangling link is
 * replaced itself, never followed.
 * @throws INVALID_METADATA naming the path and what it is
 */
export function checkOutputPath(path: string, writes: 'file' | 'directory'): void {
  const own = statOf(() => lstatSync(path));
  if (own === undefined) return;
  const named = own.isSymbolicLink() ? statOf(() => statSync(path)) : own;
  if (named === undefined || named.isFile() || (writes === 'directory' && named.isDirectory())) return;
  const what = own.isSymbolicLink() ? `a link to a ${kindOf(named)}` : `a ${kindOf(named)}`;
  const want = writes === 'file' ? 'the path of a file (or - for standard output)' : 'the path of a directory';
  throw new WorkflowError('INVALID_METADATA', `${path} is ${what}, which wfcli never replaces; give --output ${want}`, { path, found: kindOf(named) });
}
