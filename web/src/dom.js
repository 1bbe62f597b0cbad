// A few DOM helpers. Text goes in as text nodes (never innerHTML), and nothing sets a
// style attribute: the page's Content-Security-Policy allows only its own stylesheet.

// h('a', {href: '#/', class: 'x', onclick: fn}, 'text', child) builds an element.
export function h (tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v == null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k === 'value') el.value = v;
    else if (k === 'checked' || k === 'selected' || k === 'disabled') el[k] = Boolean(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

export function append (el, children) {
  for (const c of children.flat(Infinity)) {
    if (c == null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function clear (el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

// table builds a data table: columns [{label, cell(row) -> node|string, numeric}].
export function table (caption, columns, rows, { empty = 'Nothing to show.' } = {}) {
  if (!rows.length) return h('p', { class: 'empty' }, empty);
  return h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': caption },
    h('table', {},
      h('caption', { class: 'visually-hidden' }, caption),
      h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col', class: c.numeric ? 'num' : null }, c.label)))),
      h('tbody', {}, rows.map((r) => h('tr', {}, columns.map((c, i) =>
        i === 0 ? h('th', { scope: 'row', class: c.numeric ? 'num' : null }, c.cell(r)) : h('td', { class: c.numeric ? 'num' : null }, c.cell(r))))))));
}

export function errorBox (err) {
  return h('p', { class: 'error', role: 'alert' }, err.message ?? String(err));
}

export function loading (what) {
  return h('p', { class: 'loading', role: 'status' }, `Loading ${what}…`);
}
