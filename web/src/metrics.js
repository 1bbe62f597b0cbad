// What the overview draws, derived only from Metrics API answers: the movements of
// /v1/metrics/mrr as chart rows and the tiles from /v1/metrics/all.

export const MOVEMENTS = [
  { key: 'mrr-new-business', label: 'New business', className: 'new' },
  { key: 'mrr-expansion', label: 'Expansion', className: 'expansion' },
  { key: 'mrr-reactivation', label: 'Reactivation', className: 'reactivation' },
  { key: 'mrr-contraction', label: 'Contraction', className: 'contraction' },
  { key: 'mrr-churn', label: 'Churn', className: 'churn' }
];

// The change of MRR that no movement explains (foreign-currency subscriptions renewed at a
// new exchange rate). The API sends the key only in accounts billing in other currencies,
// and then in every entry; the chart shows it as its own series exactly when it is there.
export const EXCHANGE_RATE = { key: 'mrr-exchange-rate-impact', label: 'Exchange-rate impact', className: 'fx' };

export function movementSeries (entries) {
  return entries.some((e) => EXCHANGE_RATE.key in e) ? [...MOVEMENTS, EXCHANGE_RATE] : [...MOVEMENTS];
}

// movementRows: one row per non-zero movement of an entry, in series order.
export function movementRows (entries) {
  const series = movementSeries(entries);
  const rows = [];
  for (const e of entries) {
    for (const s of series) {
      const value = e[s.key] ?? 0;
      if (value !== 0) rows.push({ date: e.date, key: s.key, label: s.label, value });
    }
  }
  return rows;
}

export const INTERVALS = ['day', 'week', 'month', 'quarter', 'year'];

export const TILES = [
  { key: 'mrr', label: 'MRR', kind: 'money', help: 'Monthly recurring revenue' },
  { key: 'arr', label: 'ARR', kind: 'money', help: 'Annual run rate: MRR × 12' },
  { key: 'customers', label: 'Customers', kind: 'count', help: 'Active and past-due customers' },
  { key: 'arpa', label: 'ARPA', kind: 'money', help: 'Average revenue per account' },
  { key: 'asp', label: 'ASP', kind: 'money', help: 'Average sale price of new customers in the period' },
  { key: 'customer-churn-rate', label: 'Customer churn rate', kind: 'rate', lowerIsBetter: true, help: 'Customers lost in the period ÷ customers at its start' },
  { key: 'mrr-churn-rate', label: 'Net MRR churn rate', kind: 'rate', lowerIsBetter: true, help: 'Churn and contraction less expansion and reactivation, ÷ MRR at the start' },
  { key: 'ltv', label: 'LTV', kind: 'money', help: 'Customer lifetime value: ARPA ÷ customer churn rate' }
];

// tiles reads /v1/metrics/all: the summary's current value and its change against the
// interval before (the API's percentage-change), and the change from the first to the
// last entry of the chosen range.
export function tiles (all) {
  const entries = all.entries ?? [];
  const first = entries[0];
  const last = entries[entries.length - 1];
  return TILES.map((t) => ({
    ...t,
    current: all.summary[`current-${t.key}`],
    previous: all.summary[`previous-${t.key}`],
    change: all.summary[`${t.key}-percentage-change`],
    range: entries.length >= 2 ? { from: first.date, to: last.date, delta: last[t.key] - first[t.key] } : null
  }));
}

// presets: ranges that end today, each with its natural interval.
export function presets (today) {
  const y = today.getUTCFullYear();
  const m = today.getUTCMonth();
  const d = today.getUTCDate();
  const iso = (yy, mm, dd) => new Date(Date.UTC(yy, mm, dd)).toISOString().slice(0, 10);
  const end = iso(y, m, d);
  return [
    { id: '30d', label: 'Last 30 days', start: iso(y, m, d - 29), end, interval: 'day' },
    { id: '12w', label: 'Last 12 weeks', start: iso(y, m, d - 7 * 12 + 1), end, interval: 'week' },
    { id: '12m', label: 'Last 12 months', start: iso(y, m - 11, 1), end, interval: 'month' },
    { id: '8q', label: 'Last 8 quarters', start: iso(y, Math.floor(m / 3) * 3 - 21, 1), end, interval: 'quarter' },
    { id: '5y', label: 'Last 5 years', start: iso(y - 4, 0, 1), end, interval: 'year' }
  ];
}

// metricsQuery is the query string of a Metrics API call for the filters.
export function metricsQuery (f) {
  const q = new URLSearchParams({ 'start-date': f.start, 'end-date': f.end, interval: f.interval });
  if (f.geo) q.set('geo', f.geo);
  if (f.plans && f.plans.length) q.set('plans', f.plans.join(','));
  if (f.filters) q.set('filters', f.filters);
  return q;
}

// CFL_FILTERS are the segment builder's filters of the ChartMogul Filter Language (the
// Metrics API's `filters`), with the operators each takes and how its values are
// written: quoted strings, or bare numbers and dates.
export const CFL_FILTERS = [
  { name: 'region', label: 'Region (country or US-XX state)', ops: ['ANY', 'NONE'], quoted: true },
  { name: 'currency', label: 'Billing currency', ops: ['ANY', 'ALL', 'NONE'], quoted: true },
  { name: 'tags', label: 'Tags', ops: ['ANY', 'ALL', 'NONE'], quoted: true },
  { name: 'status', label: 'Customer status', ops: ['ANY', 'NONE'], quoted: true },
  { name: 'plan', label: 'Plan (uuid, external id or name)', ops: ['ANY', 'NONE'], quoted: true },
  { name: 'mrr', label: 'Current MRR (major units)', ops: ['GT', 'GTE', 'LT', 'LTE', 'EQ', 'NOT_EQ', 'BETWEEN'], quoted: false },
  { name: 'active_quantity', label: 'Paid subscription quantity', ops: ['GT', 'GTE', 'LT', 'LTE', 'EQ', 'NOT_EQ', 'BETWEEN'], quoted: false },
  { name: 'customer_since', label: 'Customer since (YYYY-MM-DD)', ops: ['GT', 'GTE', 'LT', 'LTE', 'EQ', 'NOT_EQ', 'BETWEEN'], quoted: false }
];

// cflValue writes one value: a string in single quotes (a quote inside doubled), a
// number or date as it is.
function cflValue (v, quoted) {
  const t = String(v).trim();
  return quoted ? `'${t.replaceAll("'", "''")}'` : t;
}

// cflCondition writes `filter~OPERATOR~value[,value…]` from comma-separated values
// (BETWEEN takes two); empty values are dropped.
export function cflCondition (filter, op, values) {
  const spec = CFL_FILTERS.find((f) => f.name === filter);
  const list = String(values).split(',').map((v) => v.trim()).filter(Boolean);
  if (!spec || !spec.ops.includes(op) || !list.length) return '';
  return `${filter}~${op}~${list.map((v) => cflValue(v, spec.quoted)).join(',')}`;
}

// cflAnd joins conditions with ~AND~ (the only join CFL has), skipping empty ones.
export function cflAnd (...conditions) {
  return conditions.map((c) => (c ?? '').trim()).filter(Boolean).join('~AND~');
}
