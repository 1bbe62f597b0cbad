// The account's activity feed (/v1/activities), newest first, a page at a time by cursor.
import { h, table } from '../dom.js';
import { money } from '../format.js';
import { pager, pageSize, pageSizeSelect } from './pager.js';

export const ACTIVITY_TYPES = { new_biz: 'New business', expansion: 'Expansion', contraction: 'Contraction', churn: 'Churn', reactivation: 'Reactivation' };

export function activityColumns (currency, { customer = true } = {}) {
  return [
    { label: 'Date', cell: (a) => h('time', { datetime: a.date }, a.date.slice(0, 10)) },
    ...(customer ? [{ label: 'Customer', cell: (a) => h('a', { href: `#/customers/${encodeURIComponent(a['customer-uuid'])}` }, a['customer-name'] || a['customer-external-id']) }] : []),
    { label: 'Type', cell: (a) => h('span', { class: `badge ${a.type}` }, ACTIVITY_TYPES[a.type] ?? a.type) },
    { label: 'Description', cell: (a) => a.description },
    { label: 'MRR movement', numeric: true, cell: (a) => money(a['activity-mrr-movement'], currency, { signed: true }) },
    { label: 'MRR after', numeric: true, cell: (a) => money(a['activity-mrr'], currency) }
  ];
}

export async function activitiesView ({ api, account }, params) {
  let type = params.get('type') ?? '';
  if (!(type in ACTIVITY_TYPES)) type = '';
  let perPage = pageSize(params);
  const changed = () => {
    type = select.value;
    perPage = sizeSelect.value;
    const p = new URLSearchParams();
    if (type) p.set('type', type);
    if (perPage !== '25') p.set('per_page', perPage);
    history.replaceState(null, '', '#/activities' + (p.toString() ? '?' + p : ''));
    restart();
  };
  const select = h('select', { id: 'a-type', onchange: changed },
    h('option', { value: '' }, 'All types'), Object.entries(ACTIVITY_TYPES).map(([k, v]) => h('option', { value: k, selected: k === type }, v)));
  const sizeSelect = pageSizeSelect('a-size', perPage, changed);

  const holder = h('div');
  let current;
  async function restart () {
    current = pager('Activities', async (cursor) => {
      const q = { per_page: perPage, order: '-date' };
      if (type) q.type = type;
      if (cursor) q.cursor = cursor;
      const page = await api.get('/v1/activities', q);
      return { rows: page.entries, next: page.has_more ? page.cursor : null };
    }, (rows) => table('Activities', activityColumns(account.currency), rows, { empty: 'No activities.' }));
    holder.replaceChildren(current.node);
    await current.show(0);
  }
  await restart();
  return h('div', {},
    h('h1', { tabindex: '-1' }, 'Activities'),
    h('div', { class: 'toolbar' }, h('label', { for: 'a-type' }, 'Type'), select, h('label', { for: 'a-size' }, 'Per page'), sizeSelect),
    holder);
}
