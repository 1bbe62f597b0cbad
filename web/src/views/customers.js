// The customer list (/v1/customers): a status filter and a search by name or e-mail, a page
// at a time. A full e-mail address is looked up with /v1/customers/search; any other text is
// matched against names and e-mails page by page through the listing (the API has no name
// search), so a rare name in a large account may take several requests.
import { h, table } from '../dom.js';
import { day, money } from '../format.js';
import { pager, pageSize, pageSizeSelect } from './pager.js';

export const STATUSES = ['Active', 'Past Due', 'Cancelled', 'New Lead', 'Working Lead', 'Qualified Lead', 'Unqualified Lead'];
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function customerColumns (currency) {
  return [
    { label: 'Name', cell: (c) => h('a', { href: `#/customers/${encodeURIComponent(c.uuid)}` }, c.name || c.external_id) },
    { label: 'E-mail', cell: (c) => c.email || '—' },
    { label: 'Status', cell: (c) => h('span', { class: 'badge status' }, c.status) },
    { label: 'Country', cell: (c) => c.country || '—' },
    { label: 'Customer since', cell: (c) => day(c['customer-since']) },
    { label: 'MRR', numeric: true, cell: (c) => money(c.mrr, currency) }
  ];
}

// scanner pages through /v1/customers and keeps the customers whose name or e-mail contains
// the text; state = {cursor, carry (matches not shown yet), scanned}.
function scanner (api, term, status, size) {
  const needle = term.toLowerCase();
  const matches = (c) => (c.name ?? '').toLowerCase().includes(needle) || (c.email ?? '').toLowerCase().includes(needle);
  return async (state = { cursor: null, carry: [], scanned: 0, done: false }) => {
    const found = [...state.carry];
    let { cursor, scanned, done } = state;
    while (found.length < size && !done) {
      const q = { per_page: '200' };
      if (status) q.status = status;
      if (cursor) q.cursor = cursor;
      const page = await api.get('/v1/customers', q);
      scanned += page.entries.length;
      found.push(...page.entries.filter(matches));
      cursor = page.cursor;
      done = !page.has_more;
    }
    const rows = found.slice(0, size);
    const carry = found.slice(size);
    const next = carry.length || !done ? { cursor, carry, scanned, done } : null;
    return { rows, next, scanned };
  };
}

export async function customersView ({ api, account }, params) {
  let term = (params.get('q') ?? '').trim();
  let status = STATUSES.includes(params.get('status')) ? params.get('status') : '';
  let perPage = pageSize(params);
  const input = h('input', { type: 'search', id: 'c-search', name: 'q', value: term, placeholder: 'Name or e-mail', autocomplete: 'off' });
  const select = h('select', { id: 'c-status', name: 'status' },
    h('option', { value: '' }, 'Any status'), STATUSES.map((s) => h('option', { value: s, selected: s === status }, s)));
  const sizeSelect = pageSizeSelect('c-size', perPage);
  const summary = h('p', { class: 'help', role: 'status', id: 'c-summary' });
  const holder = h('div');

  async function restart () {
    const p = new URLSearchParams();
    if (term) p.set('q', term);
    if (status) p.set('status', status);
    if (perPage !== '25') p.set('per_page', perPage);
    history.replaceState(null, '', '#/customers' + (p.toString() ? '?' + p : ''));
    let fetchPage;
    if (!term) {
      fetchPage = async (cursor) => {
        const q = { per_page: perPage };
        if (status) q.status = status;
        if (cursor) q.cursor = cursor;
        const page = await api.get('/v1/customers', q);
        summary.textContent = page.total_pages != null ? `${page.total_pages} page${page.total_pages === 1 ? '' : 's'} of customers` : '';
        return { rows: page.entries, next: page.has_more ? page.cursor : null };
      };
    } else if (EMAIL.test(term)) {
      fetchPage = async () => {
        summary.textContent = `Customers with the e-mail ${term}`;
        try {
          const page = await api.get('/v1/customers/search', { email: term, per_page: '200' });
          return { rows: page.entries.filter((c) => !status || c.status === status), next: null };
        } catch (e) {
          if (e.status === 404) return { rows: [], next: null };
          throw e;
        }
      };
    } else {
      const scan = scanner(api, term, status, Number(perPage));
      fetchPage = async (state) => {
        const r = await scan(state);
        summary.textContent = `Names and e-mails containing “${term}” (${r.scanned} customers searched)`;
        return r;
      };
    }
    const pg = pager('Customers', fetchPage, (rows) => table('Customers', customerColumns(account.currency), rows, { empty: 'No customers match.' }));
    holder.replaceChildren(pg.node);
    await pg.show(0);
  }

  const form = h('form', { class: 'toolbar', role: 'search', onsubmit: (ev) => {
    ev.preventDefault();
    term = input.value.trim();
    status = select.value;
    perPage = sizeSelect.value;
    restart();
  } },
  h('label', { for: 'c-search' }, 'Search'), input,
  h('label', { for: 'c-status' }, 'Status'), select,
  h('label', { for: 'c-size' }, 'Per page'), sizeSelect,
  h('button', { type: 'submit' }, 'Search'));
  select.addEventListener('change', () => form.requestSubmit());
  sizeSelect.addEventListener('change', () => form.requestSubmit());

  await restart();
  return h('div', {}, h('h1', { tabindex: '-1' }, 'Customers'), form, summary, holder);
}
