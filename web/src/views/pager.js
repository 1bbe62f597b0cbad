// pager shows pages of a listing one at a time with Previous / Next. fetchPage(state)
// returns {rows, next} where next is the state of the following page (null at the end);
// pages already seen are kept, so Previous needs no request and cursors stay opaque.
import { clear, errorBox, h, loading } from '../dom.js';

export function pager (label, fetchPage, renderRows) {
  const pages = [];
  let index = 0;
  const body = h('div', { class: 'pager-body', 'aria-live': 'polite' });
  const status = h('span', { class: 'page-no' });
  const prev = h('button', { type: 'button', class: 'prev', onclick: () => show(index - 1) }, '← Previous');
  const next = h('button', { type: 'button', class: 'next', onclick: () => show(index + 1) }, 'Next →');
  const nav = h('nav', { class: 'pager', 'aria-label': `${label} pages` }, prev, status, next);

  async function show (i) {
    if (i < 0) return;
    if (i >= pages.length) {
      const state = i === 0 ? undefined : pages[i - 1].next;
      if (i > 0 && state == null) return;
      prev.disabled = next.disabled = true;
      clear(body, loading(label.toLowerCase()));
      try {
        pages[i] = await fetchPage(state);
      } catch (e) {
        if (e.status === 401) throw e;
        clear(body, errorBox(e));
        prev.disabled = i === 0;
        return;
      }
    }
    index = i;
    clear(body, renderRows(pages[i].rows, i));
    status.textContent = `Page ${i + 1}`;
    prev.disabled = i === 0;
    next.disabled = pages[i].next == null;
  }

  return { node: h('div', { class: 'paged' }, body, nav), show };
}

export const PAGE_SIZES = ['10', '25', '50', '100'];

// pageSize reads ?per_page= of the view's URL (25 unless one of PAGE_SIZES).
export function pageSize (params) {
  const v = params.get('per_page');
  return PAGE_SIZES.includes(v) ? v : '25';
}

export function pageSizeSelect (id, value, onchange) {
  return h('select', { id, onchange }, PAGE_SIZES.map((n) => h('option', { value: n, selected: n === value }, n)));
}
