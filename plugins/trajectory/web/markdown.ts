/**
 * Messages as Markdown, made safe: `marked` renders (GitHub flavour), and
 * DOMPurify keeps only a Markdown subset of elements and attributes, links
 * to http(s) and mailto only, and returns a DOM fragment (never a markup
 * string parsed again). Images, styles, forms, frames and scripts never
 * survive: an agent's text cannot make the page load or run anything. Both
 * libraries are bundled into the app at build time (no network, no CDN).
 */
import DOMPurify from 'dompurify';
import { marked } from 'marked';
import { el } from './dom.js';

const ALLOWED_TAGS = ['p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'code', 'em', 'strong', 'del', 's', 'a', 'ul', 'ol', 'li', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'span', 'sup', 'sub', 'kbd'];
const ALLOWED_ATTR = ['href', 'title', 'start', 'align'];

export function markdown(text: string): HTMLElement {
  const html = marked.parse(text, { async: false, gfm: true });
  const fragment = DOMPurify.sanitize(html, { ALLOWED_TAGS, ALLOWED_ATTR, ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i, RETURN_DOM_FRAGMENT: true });
  for (const link of Array.from(fragment.querySelectorAll('a'))) {
    link.setAttribute('rel', 'noopener noreferrer');
    link.setAttribute('target', '_blank');
  }
  const box = el('div', { class: 'md' });
  box.append(fragment);
  return box;
}
