/** The text view of `wfcli doctor` (the report itself is `--json`). */
import { printable } from '../lib/terminal-text.js';
import type { DoctorReport } from './doctor-report.js';
import type { PiInstall } from './pi-locate.js';

const FOUND: Readonly<Record<PiInstall['found'], string>> = { named: 'named by --pi or WFCLI_PI', path: 'the pi on PATH', beside: 'installed beside this package' };

function list(items: readonly string[]): string {
  return items.length === 0 ? '(none)' : items.join(', ');
}

/** Every line one line: paths, names, descriptions and messages come from settings, extensions and the project. */
function section(title: string, lines: readonly string[]): string {
  return `${title}\n${lines.map((line) => `  ${printable(line)}\n`).join('')}`;
}

/** `pi`: the Pi the command used (cli/pi-locate.ts). */
export function formatDoctor(report: DoctorReport, pi?: PiInstall): string {
  const parts: string[] = [
    section('project', [
      `cwd          ${report.cwd}`,
      `trust        ${report.trust.projectTrusted ? 'trusted' : 'not trusted'} (${report.trust.decidedBy})`,
      `agent dir    ${report.agentDir}`,
      ...(pi === undefined ? [] : [`pi           ${pi.version} at ${pi.root} (${FOUND[pi.found]})`]),
      `settings     ${report.settingsPath}`,
      ...report.settingsSources.map((source) => `  ${source.kind.padEnd(8)} ${source.path}${source.exists ? ` (sets ${list(source.keys)})` : ' (missing: defaults)'}`),
    ]),
    section('settings', report.settings === null ? ['(cannot be loaded: see diagnostics)'] : [`concurrency ${report.settings.concurrency}, backgroundWidget ${report.settings.backgroundWidget}, codemodeTools ${report.settings.codemodeTools}`]),
    section('resource policy', [
      `global   ${report.resourcePolicy.globalSettingsPath}: skills [${list(report.resourcePolicy.selectorSources.global.skills)}], extensions [${list(report.resourcePolicy.selectorSources.global.extensions)}], tools [${list(report.resourcePolicy.selectorSources.global.tools)}]`,
      ...(report.resourcePolicy.selectorSources.project === undefined
        ? []
        : [`project  ${report.resourcePolicy.projectSettingsPath ?? ''}: skills [${list(report.resourcePolicy.selectorSources.project.skills)}], extensions [${list(report.resourcePolicy.selectorSources.project.extensions)}], tools [${list(report.resourcePolicy.selectorSources.project.tools)}]`]),
    ]),
    section('pi', [`active tools  ${list(report.activeTools)}`, `skills        ${list(report.piSkills.map((skill) => skill.name))}`, ...report.piExtensions.map((extension) => `extension     ${extension.path}${extension.tools.length > 0 ? ` (tools ${list(extension.tools)})` : ''}`)]),
    section('functions', report.functions.length === 0 ? ['(none registered)'] : report.functions.map((fn) => `${fn.name}: ${fn.description} (${fn.extension.headline} ${fn.extension.version})`)),
    section(
      'model aliases',
      report.modelAliases.length === 0
        ? ['(none)']
        : report.modelAliases.map((alias) => `${alias.name} -> ${alias.target ?? '(unresolved)'} (${alias.kind}${alias.shadowed === true ? ', shadowed by settings' : ''})`),
    ),
  ];
  const agent = report.agentInspection;
  if (agent !== undefined) {
    parts.push(
      section(
        'agent inspection',
        'error' in agent
          ? [`${agent.error.code}: ${agent.error.message}`]
          : [
              `label    ${agent.label}`,
              `model    ${agent.model}`,
              `tools    ${list(agent.resources.tools)}`,
              `skills   ${list(agent.resources.skills)}`,
              `extensions ${list(agent.resources.extensions)}`,
              `excluded ${list(agent.excludeTools)}`,
              ...(agent.systemPrompt === undefined ? [] : [`system prompt ${agent.systemPrompt.length} characters (--json shows it)`]),
            ],
      ),
    );
  }
  parts.push(section('diagnostics', report.diagnostics.length === 0 ? ['none'] : report.diagnostics.map((entry) => `${entry.severity} ${entry.code}: ${entry.message}`)));
  return parts.join('\n');
}
