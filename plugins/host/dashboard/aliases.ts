/**
 * The model aliases `/workflow` lists (spec 1 "Model aliases" rules 8, 9):
 * static aliases of the effective settings with their targets, dynamic ones
 * with the registering extension, never a resolved dynamic target.
 */
import type { CatalogAliasEntry } from '../../../kernel/index.js';
import { printable } from '../../../lib/terminal-text.js';

export interface AliasRow {
  readonly name: string;
  readonly kind: 'static' | 'dynamic';
  /** Static aliases only: the target text in the settings file, and that file. */
  readonly target?: string;
  readonly settingsPath?: string;
  readonly provenance: string;
  /** A dynamic alias whose name a static one takes (its resolver is never called). */
  readonly shadowed: boolean;
}

/** Rows in catalog order (by name, winner first); `targets` is the effective static map. */
export function aliasRows(entries: readonly CatalogAliasEntry[], targets: Readonly<Record<string, string>>): AliasRow[] {
  const seen = new Set<string>();
  return entries.map((entry) => {
    const shadowed = seen.has(entry.name);
    seen.add(entry.name);
    if (entry.kind === 'static') {
      const target = Object.hasOwn(targets, entry.name) ? targets[entry.name] : undefined;
      const { settingsPath } = entry.provenance;
      return { name: entry.name, kind: 'static', ...(target === undefined ? {} : { target }), settingsPath, provenance: `settings ${settingsPath}`, shadowed };
    }
    const { headline, version } = entry.provenance.extension;
    return { name: entry.name, kind: 'dynamic', provenance: `extension "${headline}" ${version}`, shadowed };
  });
}

/** `cheap → openai/gpt-5-mini:low · static · settings /…/settings.json`. */
export function aliasLine(row: AliasRow): string {
  const head = row.target === undefined ? row.name : `${row.name} → ${row.target}`;
  return printable([head, row.kind, row.provenance, ...(row.shadowed ? ['shadowed by the static alias'] : [])].join(' · '));
}
