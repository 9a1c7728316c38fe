/**
 * Long texts without stalling the page (issue 35): laying out a
 * 100,000-character word costs the browser seconds, and transcripts are full
 * of them (minified code, base64, lock files). A text longer than
 * PREVIEW_CHARS shows its start and a "show all" button; every run of more
 * than RUN_CHARS non-space characters gets break opportunities (`<wbr>`,
 * which copies as nothing), so the line breaker never measures a huge word
 * whole.
 */
import { el, text } from './dom.js';

/** Past this many characters a text shows its start until "show all" is pressed. */
export const PREVIEW_CHARS = 4000;
/** The longest run of non-space characters laid out without a break opportunity. */
const RUN_CHARS = 80;
const LONG_RUN = new RegExp(`\\S{${RUN_CHARS + 1},}`, 'g');

/** Splits every long run of non-space characters in `root`'s text with `<wbr>` every RUN_CHARS characters. */
export function breakRuns<T extends Node>(root: T): T {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const long: Text[] = [];
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    LONG_RUN.lastIndex = 0;
    if (node instanceof Text && LONG_RUN.test(node.data)) long.push(node);
  }
  for (const node of long) {
    const parts: Node[] = [];
    let last = 0;
    for (const match of node.data.matchAll(LONG_RUN)) {
      if (match.index > last) parts.push(text(node.data.slice(last, match.index)));
      for (let at = 0; at < match[0].length; at += RUN_CHARS) {
        if (at > 0) parts.push(el('wbr'));
        parts.push(text(match[0].slice(at, at + RUN_CHARS)));
      }
      last = match.index + match[0].length;
    }
    if (last < node.data.length) parts.push(text(node.data.slice(last)));
    node.replaceWith(...parts);
  }
  return root;
}

/**
 * `render(value)` with long runs broken; past PREVIEW_CHARS, the rendering
 * of its start and a button that swaps in the whole text when pressed.
 */
export function longText(value: string, render: (value: string) => HTMLElement): HTMLElement {
  if (value.length <= PREVIEW_CHARS) return breakRuns(render(value));
  const preview = breakRuns(render(value.slice(0, PREVIEW_CHARS)));
  const more = el('button', { type: 'button', class: 'link show-all' }, [`show all (${value.length.toLocaleString('en-US')} characters)`]);
  const box = el('div', { class: 'long-text' }, [preview, more]);
  more.addEventListener('click', () => box.replaceWith(breakRuns(render(value))));
  return box;
}
