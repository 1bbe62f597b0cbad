// A customer's page: its attributes (/v1/customers/{uuid}), subscriptions with MRR
// (/v1/customers/{uuid}/subscriptions), activities (/v1/customers/{uuid}/activities) and
// invoices (/v1/invoices?customer_uuid=).
import { errorBox, h, table } from '../dom.js';
import { day, money } from '../format.js';
import { activityColumns } from './activities.js';

function section (id, title, content) {
  return h('section', { class: 'panel', 'aria-labelledby': id }, h('h2', { id }, title), content);
}

function settled (result, render) {
  if (result.status === 'fulfilled') return render(result.value);
  if (result.reason?.status === 401) throw result.reason;
  return errorBox(result.reason);
}

function attributes (c, currency) {
  const custom = c.attributes?.custom ?? {};
  const rows = [
    ['Status', c.status],
    ['E-mail', c.email || '—'],
    ['Company', c.company || '—'],
    ['Country', [c.city, c.state, c.country].filter(Boolean).join(', ') || '—'],
    ['Customer since', day(c['customer-since'])],
    ['MRR', money(c.mrr, currency)],
    ['ARR', money(c.arr, currency)],
    ['External ids', (c.external_ids ?? [c.external_id]).join(', ')],
    ['Data source', c.data_source_uuid],
    ['Lead created', day(c.lead_created_at)],
    ['Free trial started', day(c.free_trial_started_at)],
    ['Tags', (c.attributes?.tags ?? []).join(', ') || '—'],
    ...Object.entries(custom).map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)])
  ];
  return h('dl', { class: 'attributes' }, rows.map(([k, v]) => h('div', {}, h('dt', {}, k), h('dd', {}, v))));
}

function invoiceTotal (inv) {
  return (inv.line_items ?? []).reduce((sum, li) => sum + (li.amount_in_cents ?? 0), 0);
}

function invoiceState (inv) {
  if (inv.status) return inv.status.replace('_', ' ');
  const tx = [...(inv.transactions ?? [])].sort((a, b) => String(a.date).localeCompare(String(b.date))).pop();
  if (!tx) return 'no payment recorded';
  return `${tx.type} ${tx.result}`;
}

export async function customerView ({ api, account }, uuid) {
  const currency = account.currency;
  const path = `/v1/customers/${encodeURIComponent(uuid)}`;
  const customer = await api.get(path).catch((e) => {
    if (e.status === 404) return null;
    throw e;
  });
  if (!customer) {
    return h('div', {}, h('h1', { tabindex: '-1' }, 'Customer not found'), h('p', {}, h('a', { href: '#/customers' }, 'Back to the customers')));
  }
  const [subs, acts, invs] = await Promise.allSettled([
    api.all(`${path}/subscriptions`, {}, 'entries', 5),
    api.all(`${path}/activities`, {}, 'entries', 5),
    api.get('/v1/invoices', { customer_uuid: uuid, per_page: '100' })
  ]);

  return h('div', { class: 'customer' },
    h('p', { class: 'crumbs' }, h('a', { href: '#/customers' }, 'Customers'), ' / '),
    h('h1', { tabindex: '-1' }, customer.name || customer.external_id),
    h('div', { class: 'panels' },
      section('cust-attributes', 'Attributes', attributes(customer, currency)),
      section('cust-subscriptions', 'Subscriptions', settled(subs, (rows) => table('Subscriptions', [
        { label: 'Plan', cell: (s) => s.plan },
        { label: 'Status', cell: (s) => s.status },
        { label: 'Quantity', numeric: true, cell: (s) => String(s.quantity) },
        { label: 'Billing', cell: (s) => `every ${s['billing-cycle-count']} ${s['billing-cycle']}${s['billing-cycle-count'] === 1 ? '' : 's'} in ${s.currency}` },
        { label: 'Started', cell: (s) => day(s['start-date']) },
        { label: 'Ends', cell: (s) => day(s['end-date']) },
        { label: 'MRR', numeric: true, cell: (s) => money(s.mrr, currency) },
        { label: 'ARR', numeric: true, cell: (s) => money(s.arr, currency) }
      ], rows, { empty: 'No subscriptions.' }))),
      section('cust-activities', 'Activities', settled(acts, (rows) => table('Activities of the customer',
        activityColumns(currency, { customer: false }), [...rows].reverse(), { empty: 'No activities.' }))),
      section('cust-invoices', 'Invoices', settled(invs, (page) => h('div', {},
        table('Invoices', [
          { label: 'Date', cell: (i) => day(i.date) },
          { label: 'Invoice', cell: (i) => i.external_id },
          { label: 'Lines', numeric: true, cell: (i) => String(i.line_items?.length ?? 0) },
          { label: 'State', cell: invoiceState },
          { label: 'Amount', numeric: true, cell: (i) => money(invoiceTotal(i), i.currency) }
        ], [...page.invoices].sort((a, b) => b.date.localeCompare(a.date)), { empty: 'No invoices.' }),
        page.has_more ? h('p', { class: 'help' }, 'The 100 latest invoices are shown.') : null)))));
}
