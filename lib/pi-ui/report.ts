/**
 * What a slash command reports, with or without a UI. With one, a
 * notification. Without one (print and JSON modes) notifications go nowhere,
 * so the text becomes a displayed custom message in the session (JSON mode
 * streams it, later prompts see it), and in print mode it also goes straight
 * to file descriptor 1 (2 for an error): print mode writes only the final
 * assistant text to stdout, so `pi -p /command` would print nothing.
 */
import { writeSync } from 'node:fs';
import type { ExtensionAPI, ExtensionCommandContext } from '@earendil-works/pi-coding-agent';

export function reportCommand(pi: ExtensionAPI, ctx: ExtensionCommandContext, customType: string, text: string, level: 'info' | 'error'): void {
  if (ctx.hasUI) return ctx.ui.notify(text, level);
  pi.sendMessage({ customType, content: text, display: true, details: { level } });
  if (ctx.mode === 'print') writeSync(level === 'error' ? 2 : 1, `${text}\n`);
}
