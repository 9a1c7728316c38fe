/** DOM and SVG element builders for the viewer app: attributes and text only, never markup strings. */
const SVG_NS = 'http://www.w3.org/2000/svg';

type Child = string | Node;

function fill(node: Element, attributes: Readonly<Record<string, string>>, children: readonly Child[]): void {
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  for (const child of children) node.append(typeof child === 'string' ? document.createTextNode(child) : child);
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Readonly<Record<string, string>> = {}, children: readonly Child[] = []): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  fill(node, attributes, children);
  return node;
}

export function svg(tag: string, attributes: Readonly<Record<string, string | number>> = {}, children: readonly Child[] = []): SVGElement {
  const node = document.createElementNS(SVG_NS, tag);
  fill(node, Object.fromEntries(Object.entries(attributes).map(([name, value]) => [name, String(value)])), children);
  return node;
}

export function text(value: string): Text {
  return document.createTextNode(value);
}

export function table(headings: readonly string[], rows: readonly (readonly string[])[], id: string): HTMLTableElement {
  return el('table', { id }, [el('thead', {}, [el('tr', {}, headings.map((heading) => el('th', {}, [heading])))]), el('tbody', {}, rows.map((row) => el('tr', {}, row.map((cell) => el('td', {}, [cell])))))]);
}
