/**
 * The alias screen of `/workflow` (spec 1 "Model aliases" rule 8): lists the
 * effective aliases with provenance and adds, edits and deletes static ones
 * in the active settings source. Each change rewrites only `modelAliases` of
 * that file; launches and resumes read settings afresh, so no /reload.
 */
import type { ExtensionUIContext } from '@earendil-works/pi-coding-agent';
import { messageOf } from '../../../kernel/index.js';
import { aliasLine, type AliasRow } from '../dashboard/aliases.js';
import { checkAliasTargets } from './alias-targets.js';
import { activeSource, loadAliasView } from './alias-source.js';
import { readSettingsFile, writeModelAliases } from './settings-file.js';
import type { WorkflowHostView } from '../view.js';

export type Dialogs = Pick<ExtensionUIContext, 'select' | 'confirm' | 'input' | 'notify'>;

const ADD = '+ Add an alias';
const TARGET_HINT = 'provider/model:thinking, or another alias with an optional :thinking';

interface Source {
  readonly file: string;
  readonly kind: ReturnType<typeof activeSource>['kind'];
  /** The file's own map; undefined when the file cannot be read (then nothing is offered for editing). */
  readonly own: Readonly<Record<string, string>> | undefined;
  /** Whether the file sets `modelAliases` at all. */
  readonly setsAliases: boolean;
}

function readSource(view: WorkflowHostView, ui: Dialogs): Source {
  const { file, kind } = activeSource(view);
  try {
    const content = readSettingsFile(file, kind);
    return { file, kind, own: content.modelAliases, setsAliases: Object.hasOwn(content.data, 'modelAliases') };
  } catch (error) {
    ui.notify(`Aliases cannot be edited: ${messageOf(error)}`, 'error');
    return { file, kind, own: undefined, setsAliases: false };
  }
}

export async function editAliases(view: WorkflowHostView, ui: Dialogs): Promise<void> {
  for (;;) {
    const aliases = await loadAliasView(view);
    const source = readSource(view, ui);
    const lines = aliases.rows.map(aliasLine);
    const options = source.own === undefined ? lines : [...lines, ADD];
    const head = `Model aliases (edits go to ${source.file})`;
    const choice = await ui.select(aliases.problem === undefined ? head : `${head}\n${aliases.problem}`, options.length === 0 ? ['(no aliases)'] : options);
    if (choice === undefined) return;
    const row = aliases.rows[lines.indexOf(choice)];
    if (source.own === undefined) continue;
    const inherited = aliases.rows.filter((entry) => entry.settingsPath !== undefined && entry.settingsPath !== source.file).length;
    const save = (next: Readonly<Record<string, string>>, done: string): Promise<void> => saveAliases(ui, { ...source, inherited }, aliases.dynamicNames, next, done);
    if (choice === ADD) {
      const name = (await ui.input('New alias name', 'letters, digits, _ and -, starting with a letter'))?.trim();
      if (!name) continue;
      if (Object.hasOwn(source.own, name)) {
        ui.notify(`Alias "${name}" already exists in ${source.file}; pick it to edit it`, 'warning');
        continue;
      }
      const target = (await ui.input(`Target of "${name}"`, TARGET_HINT))?.trim();
      if (target) await save({ ...source.own, [name]: target }, `Added alias "${name}" → ${target}`);
    } else if (row !== undefined) {
      await editRow(ui, row, source.own, source.file, save);
    }
  }
}

async function editRow(
  ui: Dialogs,
  row: AliasRow,
  own: Readonly<Record<string, string>>,
  file: string,
  save: (next: Readonly<Record<string, string>>, done: string) => Promise<void>,
): Promise<void> {
  const mine = Object.hasOwn(own, row.name);
  const edit = mine ? 'Edit target' : `Define "${row.name}" in ${file}`;
  const actions = mine ? [edit, 'Delete', 'Back'] : [edit, 'Back'];
  const action = await ui.select(aliasLine(row), actions);
  if (action === edit) {
    const target = (await ui.input(`Target of "${row.name}"${mine ? ` (now ${own[row.name]})` : ''}`, TARGET_HINT))?.trim();
    if (target) await save({ ...own, [row.name]: target }, `Alias "${row.name}" → ${target}`);
  } else if (action === 'Delete' && (await ui.confirm('Delete model alias', `Delete "${row.name}" from ${file}? Runs that use it fail with UNKNOWN_MODEL on their next resume.`))) {
    const { [row.name]: _removed, ...rest } = own;
    await save(rest, `Deleted alias "${row.name}"`);
  }
}

async function saveAliases(
  ui: Dialogs,
  source: { readonly file: string; readonly kind: Source['kind']; readonly setsAliases: boolean; readonly inherited: number },
  dynamicNames: readonly string[],
  next: Readonly<Record<string, string>>,
  done: string,
): Promise<void> {
  // A project map replaces the whole global map: say so before the first project alias hides the global ones.
  if (!source.setsAliases && source.inherited > 0) {
    const replace = await ui.confirm('Model aliases', `${source.file} sets no modelAliases yet. Saving one there replaces the ${source.inherited} inherited alias(es) for this project. Continue?`);
    if (!replace) return;
  }
  try {
    checkAliasTargets(next, dynamicNames, source.file);
    writeModelAliases(source.file, source.kind, next);
    ui.notify(`${done} (${source.file}); new launches and resumes use it`, 'info');
  } catch (error) {
    ui.notify(messageOf(error), 'error');
  }
}
