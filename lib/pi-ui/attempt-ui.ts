/** The UI facade extension attempt actions get (spec 2 "AgentAttemptAction"): Pi's dialogs and its working message. */
import type { ExtensionUIContext } from '@earendil-works/pi-coding-agent';
import type { AttemptActionUi } from '../../kernel/index.js';

export function attemptActionUi(ui: ExtensionUIContext): AttemptActionUi {
  return {
    notify: (message, level) => ui.notify(message, level),
    confirm: (title, message) => ui.confirm(title, message),
    select: (title, options) => ui.select(title, [...options]),
    input: (title, placeholder) => ui.input(title, placeholder),
    setWorkingMessage: (message) => ui.setWorkingMessage(message),
  };
}
