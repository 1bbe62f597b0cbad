// The Metrics API and the account activity log through chartmogul-node 3.12.3:
// a small portfolio imported through json_imports, every metric method by month against a
// hand computation, Metrics.Activity.all with its cursor, and the 400s. Recomputation is
// asynchronous (import worker -> jobs worker -> account series), so reads poll.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { ChartMogul, SECONDS_OFFSET, createAccount, familyA, rejectsWith, unique } from './lib/index.mjs';

const { DataSource, JsonImport, Metrics } = ChartMogul;

let acc;
let other;

async function until (what, read, ok, timeoutMs = 60000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await read();
    if (ok(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  assert.fail(`${what}: still ${JSON.stringify(last)}`);
}

function invoice (ext, customer, start, end, amount, extra = {}) {
  return {
    invoice: { external_id: ext, customer_external_id: customer, date: start, currency: 'USD' },
    line: {
      invoice_external_id: ext, type: 'subscription', subscription_external_id: `${customer}-sub`, plan_external_id: 'monthly',
      service_period_start: start, service_period_end: end, amount_in_cents: amount, quantity: 1, ...extra
    },
    payment: { invoice_external_id: ext, type: 'payment', result: 'successful', date: start }
  };
}

// The portfolio (hand computation, by month, 2024):
//   c1 pays 1000 from 1 Jan, 2000 from 1 Feb (expansion); c2 pays 3000 from 1 Feb, cancels 15 Mar.
//   Jan: mrr 1000, new 1000, customers 1, arpa 1000, asp 1000.
//   Feb: mrr 5000, new 3000, expansion 1000, customers 2, arpa 2500, asp 3000, net mrr churn −100 %.
//   Mar: mrr 2000, churn −3000, customers 1, arpa 2000, customer churn 1/2 = 50 %,
//        net mrr churn 3000/5000 = 60 %, ltv 2000/50 % = 4000.
before(async () => {
  acc = await createAccount(unique('Metrics API'));
  other = await createAccount(unique('Metrics other'));
  const ds = await DataSource.create(acc.config, { name: unique('ds') });
  const records = [
    invoice('c1-1', 'c1', '2024-01-01T00:00:00Z', '2024-02-01T00:00:00Z', 1000),
    invoice('c1-2', 'c1', '2024-02-01T00:00:00Z', '2024-03-01T00:00:00Z', 2000),
    invoice('c1-3', 'c1', '2024-03-01T00:00:00Z', '2024-04-01T00:00:00Z', 2000),
    invoice('c2-1', 'c2', '2024-02-01T00:00:00Z', '2024-03-01T00:00:00Z', 3000),
    invoice('c2-2', 'c2', '2024-03-01T00:00:00Z', '2024-04-01T00:00:00Z', 3000, { cancelled_at: '2024-03-15T00:00:00Z' })
  ];
  const created = await JsonImport.create(acc.config, ds.uuid, {
    external_id: unique('imp'),
    customers: [{ external_id: 'c1', name: 'Customer One', country: 'US' }, { external_id: 'c2', name: 'Customer Two', country: 'DE' }],
    plans: [{ external_id: 'monthly', name: 'Monthly', interval_count: 1, interval_unit: 'month' }],
    invoices: records.map((r) => r.invoice),
    line_items: records.map((r) => r.line),
    transactions: records.map((r) => r.payment)
  });
  await until('import', () => JsonImport.retrieve(acc.config, ds.uuid, created.id), (i) => i.status === 'completed');
  await until('series', () => Metrics.mrr(acc.config, Q), (r) => r.entries.map((e) => e.mrr).join() === '1000,5000,2000');
});

const Q = { 'start-date': '2024-01-01', 'end-date': '2024-03-31', interval: 'month' };
const values = (r, key) => r.entries.map((e) => e[key]);

describe('Metrics API', () => {
  test('Metrics.mrr: entries with the five movements and the identity', async () => {
    const r = await Metrics.mrr(acc.config, Q);
    assert.deepEqual(r.entries[1], {
      date: '2024-02-29', mrr: 5000, 'percentage-change': 400, 'mrr-new-business': 3000, 'mrr-expansion': 1000,
      'mrr-contraction': 0, 'mrr-churn': 0, 'mrr-reactivation': 0
    });
    assert.deepEqual(values(r, 'date'), ['2024-01-31', '2024-02-29', '2024-03-31']);
    assert.deepEqual(values(r, 'mrr-churn'), [0, 0, -3000]);
    let mrr = 0;
    for (const e of r.entries) {
      mrr += e['mrr-new-business'] + e['mrr-expansion'] + e['mrr-contraction'] + e['mrr-churn'] + e['mrr-reactivation'];
      assert.equal(mrr, e.mrr);
    }
    assert.deepEqual(r.summary, { current: 2000, previous: 5000, 'percentage-change': -60 });
  });

  test('the other metric methods match the hand computation', async () => {
    const cases = [
      ['arr', 'arr', [12000, 60000, 24000]],
      ['arpa', 'arpa', [1000, 2500, 2000]],
      ['asp', 'asp', [1000, 3000, 0]],
      ['customerCount', 'customers', [1, 2, 1]],
      ['customerChurnRate', 'customer-churn-rate', [0, 0, 50]],
      ['mrrChurnRate', 'mrr-churn-rate', [0, -100, 60]],
      ['ltv', 'ltv', [0, 0, 4000]]
    ];
    const all = await Metrics.all(acc.config, Q);
    for (const [method, key, want] of cases) {
      const r = await Metrics[method](acc.config, Q);
      assert.deepEqual(values(r, key), want, method);
      assert.deepEqual(Object.keys(r.entries[0]), ['date', key, 'percentage-change'], method);
      assert.deepEqual(values(all, key), want, `all ${key}`);
      assert.equal(all.summary[`current-${key}`], want[2]);
    }
    assert.equal(all.summary['previous-mrr'], 5000);
  });

  test('geo filters by country; another account sees nothing', async () => {
    const de = await Metrics.mrr(acc.config, { ...Q, geo: 'DE' });
    assert.deepEqual(values(de, 'mrr'), [0, 3000, 0]);
    const mine = await Metrics.customerCount(other.config, Q);
    assert.deepEqual(values(mine, 'customers'), [0, 0, 0]);
  });

  test('defaults: mrr by day, ltv by month', async () => {
    const q = { 'start-date': '2024-01-01', 'end-date': '2024-02-01' };
    assert.equal((await Metrics.mrr(acc.config, q)).entries.length, 32);
    assert.deepEqual(values(await Metrics.ltv(acc.config, q), 'date'), ['2024-01-31', '2024-02-01']);
  });

  test('bad queries are 400s naming the parameter', async () => {
    await rejectsWith(Metrics.all(acc.config, { 'end-date': '2024-01-01' }), 400,
      familyA(400, 'Parameter "start-date" is missing', 'start-date'));
    await rejectsWith(Metrics.mrr(acc.config, { 'start-date': '2024-03-01', 'end-date': '2024-02-01' }), 400,
      familyA(400, 'Parameter "end-date" must not be before "start-date"', 'end-date'));
    await rejectsWith(Metrics.arr(acc.config, { ...Q, interval: 'fortnight' }), 400,
      familyA(400, 'Invalid value for parameter "interval": "fortnight" (one of day, week, month, quarter, year)', 'interval'));
    await rejectsWith(Metrics.asp(acc.config, { ...Q, 'start-date': '2024-13-01' }), 400,
      familyA(400, 'Invalid value for parameter "start-date": "2024-13-01" is not a date (YYYY-MM-DD)', 'start-date'));
    await rejectsWith(Metrics.all(acc.config, { ...Q, filters: 'country~EQUALS~US' }), 400,
      familyA(400, 'Invalid value for parameter "filters": Unknown operator (one of ALL, ANY, NONE, EQ, NOT_EQ, GT, GTE, ' +
        'LT, LTE, BETWEEN, CONTAINS, NOT_CONTAINS, IS, IS_NOT) in "EQUALS"', 'filters'));
    await rejectsWith(Metrics.mrr(acc.config, { ...Q, filters: "colour~ANY~'red'" }), 400,
      familyA(400, 'Invalid value for parameter "filters": Unknown filter "colour" (one of plan, plan_group, region, ' +
        'country, currency, tags, mrr, active_quantity, customer_since, lead_created_at, free_trial_started_at, status, ' +
        'data_source, or custom.<key> for a custom attribute) in "colour~ANY~\'red\'"', 'filters'));
  });

  // The filters parameter (ChartMogul Filter Language) as chartmogul-node's README shows
  // it: every invoice is in USD, so currency~ANY~'USD' is the whole portfolio; region DE
  // is c2 alone; customer_since before February is c1 alone, on every metric method.
  test('filters in the ChartMogul Filter Language', async () => {
    assert.deepEqual(values(await Metrics.mrr(acc.config, { ...Q, filters: "currency~ANY~'USD'" }), 'mrr'), [1000, 5000, 2000]);
    assert.deepEqual(values(await Metrics.mrr(acc.config, { ...Q, filters: "region~ANY~'DE'" }), 'mrr'), [0, 3000, 0]);
    const early = { ...Q, filters: 'customer_since~LT~2024-02-01' };
    assert.deepEqual(values(await Metrics.all(acc.config, early), 'mrr'), [1000, 2000, 2000]);
    assert.deepEqual(values(await Metrics.customerCount(acc.config, early), 'customers'), [1, 1, 1]);
    assert.deepEqual(values(await Metrics.arpa(acc.config, early), 'arpa'), [1000, 2000, 2000]);
    assert.deepEqual(values(await Metrics.customerChurnRate(acc.config, early), 'customer-churn-rate'), [0, 0, 0]);
  });
});

// Several plans are one filter (hand computation, by month, 2024): p1 pays gold 1000 from
// January and adds silver 500 from February; p2 pays gold 2000 in January and renews on
// silver at 2500 from February. plans=gold,silver: mrr 3000, 4000, 4000; 2 customers every
// month (p1 once, not once per plan); February's +500 add-on and +500 switch are expansion,
// not a churn and a new customer.
describe('Metrics with several plans', () => {
  let multi;
  const line = (ext, customer, sub, plan, start, end, amount) => ({
    invoice: { external_id: ext, customer_external_id: customer, date: start, currency: 'USD' },
    line: {
      invoice_external_id: ext, type: 'subscription', subscription_external_id: sub, plan_external_id: plan,
      service_period_start: start, service_period_end: end, amount_in_cents: amount, quantity: 1
    }
  });
  before(async () => {
    multi = await createAccount(unique('Metrics plans'));
    const ds = await DataSource.create(multi.config, { name: unique('ds') });
    const m = (n) => `2024-0${n}-01T00:00:00Z`;
    const records = [
      line('p1-g1', 'p1', 'p1-g', 'gold', m(1), m(2), 1000), line('p1-g2', 'p1', 'p1-g', 'gold', m(2), m(3), 1000),
      line('p1-g3', 'p1', 'p1-g', 'gold', m(3), m(4), 1000), line('p1-s2', 'p1', 'p1-s', 'silver', m(2), m(3), 500),
      line('p1-s3', 'p1', 'p1-s', 'silver', m(3), m(4), 500), line('p2-1', 'p2', 'p2-a', 'gold', m(1), m(2), 2000),
      line('p2-2', 'p2', 'p2-a', 'silver', m(2), m(3), 2500), line('p2-3', 'p2', 'p2-a', 'silver', m(3), m(4), 2500)
    ];
    const created = await JsonImport.create(multi.config, ds.uuid, {
      external_id: unique('imp'),
      customers: [{ external_id: 'p1', name: 'Plans One', country: 'US' }, { external_id: 'p2', name: 'Plans Two', country: 'DE' }],
      plans: [{ external_id: 'gold', name: 'Gold', interval_count: 1, interval_unit: 'month' },
        { external_id: 'silver', name: 'Silver', interval_count: 1, interval_unit: 'month' }],
      invoices: records.map((r) => r.invoice),
      line_items: records.map((r) => r.line)
    });
    await until('import', () => JsonImport.retrieve(multi.config, ds.uuid, created.id), (i) => i.status === 'completed');
    await until('series', () => Metrics.mrr(multi.config, { ...Q, plans: 'gold,silver' }),
      (r) => r.entries.map((e) => e.mrr).join() === '3000,4000,4000');
  });

  test('a customer on two of the plans counts once; a switch between them is an expansion', async () => {
    const q = { ...Q, plans: 'Gold,silver' };
    assert.deepEqual(values(await Metrics.customerCount(multi.config, q), 'customers'), [2, 2, 2]);
    const mrr = await Metrics.mrr(multi.config, q);
    assert.deepEqual(values(mrr, 'mrr-expansion'), [0, 1000, 0]);
    assert.deepEqual(values(mrr, 'mrr-churn'), [0, 0, 0]);
    assert.deepEqual(values(await Metrics.arpa(multi.config, q), 'arpa'), [1500, 2000, 2000]);
    assert.deepEqual(values(await Metrics.customerCount(multi.config, { ...q, geo: 'US' }), 'customers'), [1, 1, 1]);
    assert.deepEqual(values(await Metrics.customerCount(multi.config, { ...Q, plans: 'gold' }), 'customers'), [2, 1, 1]);
  });
});

describe('Metrics.Activity.all', () => {
  test('the account activities with the recorded fields, in date order, with a cursor', async () => {
    const all = await Metrics.Activity.all(acc.config, { per_page: 200 });
    // c1's expansion and c2's purchase share an instant: their relative order is the uuids'.
    assert.deepEqual(all.entries.map((a) => a.type).sort(), ['churn', 'expansion', 'new_biz', 'new_biz']);
    assert.deepEqual([all.entries[0].type, all.entries[3].type], ['new_biz', 'churn']);
    const first = all.entries[0];
    assert.deepEqual(Object.keys(first), ['description', 'activity-mrr-movement', 'activity-mrr', 'activity-arr', 'date', 'type',
      'currency', 'subscription-external-id', 'subscription-set-external-id', 'plan-external-id', 'customer-name',
      'customer-uuid', 'customer-external-id', 'billing-connector-uuid', 'uuid']);
    assert.equal(first.date, '2024-01-01T00:00:00+00:00');
    assert.match(first.date, SECONDS_OFFSET);
    assert.equal(first['activity-arr'], 12000);
    assert.equal(first['customer-name'], 'Customer One');
    assert.equal(first['plan-external-id'], 'monthly');
    assert.equal(all.has_more, false);
    assert.equal(all.per_page, 200);

    const page1 = await Metrics.Activity.all(acc.config, { per_page: 3 });
    assert.equal(page1.has_more, true);
    const page2 = await Metrics.Activity.all(acc.config, { per_page: 3, cursor: page1.cursor });
    assert.deepEqual([...page1.entries, ...page2.entries].map((a) => a.uuid), all.entries.map((a) => a.uuid));
    assert.equal(page2.per_page, undefined);

    const churns = await Metrics.Activity.all(acc.config, { type: 'churn', 'start-date': '2024-03-01' });
    assert.deepEqual(churns.entries.map((a) => a['activity-mrr-movement']), [-3000]);
    await rejectsWith(Metrics.Activity.all(acc.config, { cursor: page1.cursor + 'x' }), 400, familyA(400, 'Invalid cursor', 'cursor'));
    await rejectsWith(Metrics.Activity.all(other.config, { cursor: page1.cursor }), 400, familyA(400, 'Invalid cursor', 'cursor'));
  });
});
