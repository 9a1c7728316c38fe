/**
 * `wfcli report <run-id> [--output <file>] [--no-transcripts]`: one
 * self-contained HTML file of a run of this project (any session): result,
 * phases, timeline, agents and, unless left out, every attempt's transcript
 * (lib/trajectory/report.ts). It opens offline and makes no request.
 * Reads the run store and the transcripts only (no Pi session); the viewer's
 * code loads only when this command runs. The file is written atomically,
 * mode 0600: a report holds what the transcripts hold. By default it goes
 * into the run's own directory (`report.html`, issue 37 item 8), never into
 * the project's working tree where it is easily committed; `--output <file>`
 * names another place, `--output -` standard output, and a device, FIFO or
 * socket is never replaced (output-path.ts).
 */
import { resolve } from 'node:path';
// The run store's readers by module, not the kernel's index: `wfcli report` loads no engine (commands.ts).
import { summarize } from '../kernel/engine/status.js';
import { shownSnapshot } from '../kernel/engine/stored-run-check.js';
import { writeFileAtomic } from '../kernel/store/atomic.js';
import { readRunLock } from '../kernel/store/lock.js';
import { writeRunReport } from '../kernel/store/run-files.js';
import { EXIT_OK, flag, stringOption, type CliIo, type CommandSpec, type ParsedCommand } from './command.js';
import { printable } from '../lib/terminal-text.js';
import { STDOUT_OUTPUT, checkOutputPath } from './output-path.js';
import { findStoredRun } from './stored-run.js';

async function run(parsed: ParsedCommand, io: CliIo): Promise<number> {
  const runId = parsed.positionals[0] ?? '';
  const option = stringOption(parsed, 'output');
  const output = option === undefined || option === STDOUT_OUTPUT ? undefined : resolve(io.cwd, option);
  // Refused before anything is read.
  if (output !== undefined) checkOutputPath(output, 'file');
  const { runDir, snapshot } = findStoredRun(io, runId);
  const [{ buildModel }, { reportHtml, runTranscripts }] = await Promise.all([import('../lib/trajectory/model.js'), import('../lib/trajectory/report.js')]);
  const executing = readRunLock(runDir) !== undefined;
  // An active run whose host died reads as interrupted, as in status and list.
  const model = buildModel(summarize(shownSnapshot(snapshot, runDir, executing), executing), runDir);
  const transcripts = flag(parsed, 'no-transcripts') ? undefined : runTranscripts(model, runDir);
  const html = reportHtml({ v: 1, generatedAt: new Date().toISOString(), model, ...(transcripts === undefined ? {} : { transcripts }) });
  const what = transcripts === undefined ? 'without transcripts' : `${transcripts.length} transcript(s)`;
  if (option === STDOUT_OUTPUT) io.stdout(html);
  else if (output === undefined) io.stdout(`${printable(writeRunReport(runDir, html).path)}\n`);
  else {
    checkOutputPath(output, 'file');
    writeFileAtomic(output, html, 0o600, { durable: false });
    io.stdout(`${printable(output)}\n`);
  }
  io.stderr(`Report of run ${printable(runId)} (${model.agents.length} agent(s), ${what}). It may hold secrets an agent saw: share it with care.\n`);
  return EXIT_OK;
}

export const reportCommand: CommandSpec = {
  name: 'report',
  usage: ['wfcli report <run-id> [--output <file>] [--no-transcripts]'],
  help: `  --output <file>   where to write it instead of the run's directory (a file
                    there is replaced, a device, FIFO or socket never);
                    - for standard output
  --no-transcripts  leave the agents' transcripts out

Any run of this project, whichever session launched it. The file opens in a
browser without a network: the viewer's page with everything inline, a
strict Content-Security-Policy, and no request of any kind. With transcripts
it holds the agents' prompts, answers, tool calls and output, and so any
secret they saw: it is written 0600, by default as report.html in the run's
own directory in the workflow store (not the project, where it could be
committed). Prints the file's path (with --output -, the report itself).`,
  options: { output: { type: 'string' }, 'no-transcripts': { type: 'boolean' } },
  positionals: { min: 1, max: 1 },
  run,
};
