// The Metrics API and the account activity log (issue 6) through chartmogul-node 3.12.3:
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
