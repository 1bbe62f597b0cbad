// The example scenarios of the metrics rules, end to end: every
// scenario's records go through json_imports on the local stack (router, authorizer, SQS
// pollers, import and jobs workers), and the customer's mrr, arr, status, customer-since,
// Metrics-API subscriptions and activities are read through chartmogul-node 3.12.3.
// The same scenarios, at fixed dates, are the engine's table tests
// (shared/metrics/engine/scenarios_test.go); here dates sit around today because the stack
// computes at the real clock. All scenarios of one account go in one import (one customer
// each); one poll waits for the figures to settle, then the tests check them concurrently.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { ChartMogul, createAccount, setSetting, unique } from './lib/index.mjs';
import { DAY, customerByExternalId, dayStart, importRecords, iso, monthStart, offset, until } from './lib/metrics.mjs';

const { Customer, DataSource, Invoice, Metrics } = ChartMogul;

const M = monthStart;
const D = dayStart;
// Halfway through last month (12:00 when it has an odd number of days).
const midLastMonth = () => M(-1) + (M(0) - M(-1)) / 2;

const PLANS = [
  { external_id: 'monthly', name: 'Silver', interval_count: 1, interval_unit: 'month' },
  { external_id: 'gold', name: 'Gold', interval_count: 1, interval_unit: 'month' },
  { external_id: 'quarterly', name: 'Quarterly', interval_count: 3, interval_unit: 'month' },
  { external_id: 'weekly', name: 'Weekly', interval_count: 7, interval_unit: 'day' }
];

// item is a subscription line item on the scenario's subscription; extra overrides fields.
const item = (plan, start, end, amount, extra = {}) => ({
  type: 'subscription', plan_external_id: plan, service_period_start: iso(start), service_period_end: iso(end),
  amount_in_cents: amount, quantity: 1, ...extra
});
const tx = (type, result, date) => ({ type, result, date: iso(date) });
const event = (ext, type, date, effective) => ({ external_id: ext, event_type: type, event_date: iso(date), effective_date: iso(effective) });
// monthlyRun bills 1000 on Silver for n consecutive months from M(first).
const monthlyRun = (first, n) => Array.from({ length: n }, (_, i) => ({ date: M(first + i), items: [item('monthly', M(first + i), M(first + i + 1), 1000)] }));

// Each scenario: its account settings, its invoices ({date, due, items, txs}) and events,
// and what the customer shows afterwards. subs are [plan, mrr, quantity]; acts are
// [date, type, activity-mrr-movement, activity-mrr].
const SCENARIOS = [
  {
    name: 'quarterly plan: 9000 a quarter is 3000 a month',
    invoices: [{ date: M(-1), items: [item('quarterly', M(-1), M(2), 9000)] }],
    mrr: 3000, arr: 36000, status: 'Active', since: M(-1), subs: [['Quarterly', 3000, 1]], acts: [[M(-1), 'new_biz', 3000, 3000]]
  },
  {
    name: '7-day plan: 1000 a week is 4348 a month',
    invoices: [{ date: D(-2), items: [item('weekly', D(-2), D(5), 1000)] }],
    mrr: 4348, arr: 52176, status: 'Active', since: D(-2), subs: [['Weekly', 4348, 1]], acts: [[D(-2), 'new_biz', 4348, 4348]]
  },
  {
    name: 'quantity change: expansion',
    invoices: [
      { date: M(-1), items: [item('monthly', M(-1), M(0), 1000)] },
      { date: M(0), items: [item('monthly', M(0), M(1), 2000, { quantity: 2 })] }],
    mrr: 2000, arr: 24000, status: 'Active', since: M(-1), subs: [['Silver', 2000, 2]],
    acts: [[M(-1), 'new_biz', 1000, 1000], [M(0), 'expansion', 1000, 2000]]
  },
  {
    name: 'prorated upgrade mid-period: the prorated amount normalised to a month',
    invoices: [
      { date: M(-1), items: [item('monthly', M(-1), M(0), 5000)] },
      { date: midLastMonth(), items: [item('gold', midLastMonth(), M(0), 2500, { prorated: true, proration_type: 'differential' })] },
      { date: M(0), items: [item('gold', M(0), M(1), 10000)] }],
    mrr: 10000, arr: 120000, status: 'Active', since: M(-1), subs: [['Gold', 10000, 1]],
    acts: [[M(-1), 'new_biz', 5000, 5000], [midLastMonth(), 'expansion', 5000, 10000]]
  },
  {
    name: 'downgrade at renewal: contraction',
    invoices: [
      { date: M(-1), items: [item('gold', M(-1), M(0), 5000)] },
      { date: M(0), items: [item('monthly', M(0), M(1), 3000)] }],
    mrr: 3000, arr: 36000, status: 'Active', since: M(-1), subs: [['Silver', 3000, 1]],
    acts: [[M(-1), 'new_biz', 5000, 5000], [M(0), 'contraction', -2000, 3000]]
  },
  {
    name: 'cancellation then reactivation; customer-since does not move',
    invoices: [
      { date: M(-4), items: [item('monthly', M(-4), M(-3), 1000)] },
      { date: M(-3), items: [item('monthly', M(-3), M(-2), 1000, { cancelled_at: iso(M(-2)) })] },
      { date: M(0), items: [item('monthly', M(0), M(1), 1200)] }],
    mrr: 1200, arr: 14400, status: 'Active', since: M(-4), subs: [['Silver', 1200, 1]],
    acts: [[M(-4), 'new_biz', 1000, 1000], [M(-2), 'churn', -1000, 0], [M(0), 'reactivation', 1200, 1200]]
  },
  {
    name: 'failed payment past its due date: Past Due',
    invoices: [
      { date: D(-41), items: [item('monthly', D(-41), D(-10), 1000)], txs: [tx('payment', 'successful', D(-41))] },
      { date: D(-10), due: D(-3), items: [item('monthly', D(-10), D(21), 1000)], txs: [tx('payment', 'failed', D(-10))] }],
    mrr: 1000, arr: 12000, status: 'Past Due', since: D(-41), subs: [['Silver', 1000, 1]], acts: [[D(-41), 'new_biz', 1000, 1000]]
  },
  {
    name: 'full refund with refund_full_only: stays a lead',
    refundFullOnly: true,
    invoices: [{ date: M(0), items: [item('monthly', M(0), M(1), 1000)], txs: [tx('refund', 'successful', M(0))] }],
    mrr: 0, arr: 0, status: 'New Lead', since: null, subs: [], acts: []
  },
  {
    name: 'the same full refund with the default refund_ignore: counts',
    invoices: [{ date: M(0), items: [item('monthly', M(0), M(1), 1000)], txs: [tx('refund', 'successful', M(0))] }],
    mrr: 1000, arr: 12000, status: 'Active', since: M(0), subs: [['Silver', 1000, 1]], acts: [[M(0), 'new_biz', 1000, 1000]]
  },
  {
    name: 'trial then paid: customer since the first payment',
    invoices: [
      { date: D(-20), items: [item('monthly', D(-20), D(-5), 0, { type: 'trial' })] },
      { date: D(-5), items: [item('monthly', D(-5), D(26), 1000)] }],
    mrr: 1000, arr: 12000, status: 'Active', since: D(-5), subs: [['Silver', 1000, 1]], acts: [[D(-5), 'new_biz', 1000, 1000]]
  },
  {
    name: 'discount and tax: amount minus tax, fees ignored',
    invoices: [{
      date: M(0),
      items: [item('monthly', M(0), M(1), 1100, { tax_amount_in_cents: 100, discount_amount_in_cents: 500, transaction_fees_in_cents: 30 })]
    }],
    mrr: 1000, arr: 12000, status: 'Active', since: M(0), subs: [['Silver', 1000, 1]], acts: [[M(0), 'new_biz', 1000, 1000]]
  },
  {
    name: 'gap in service periods: Past Due during the gap, no churn',
    invoices: [
      { date: M(-1), items: [item('monthly', M(-1), M(0), 1000)] },
      { date: M(1), items: [item('monthly', M(1), M(2), 1000)] }],
    mrr: 1000, arr: 12000, status: 'Past Due', since: M(-1), subs: [['Silver', 1000, 1]], acts: [[M(-1), 'new_biz', 1000, 1000]]
  },
  {
    name: 'gap closed: Active again, no churn',
    invoices: [
      { date: M(-2), items: [item('monthly', M(-2), M(-1), 1000)] },
      { date: M(0), items: [item('monthly', M(0), M(1), 1000)] }],
    mrr: 1000, arr: 12000, status: 'Active', since: M(-2), subs: [['Silver', 1000, 1]], acts: [[M(-2), 'new_biz', 1000, 1000]]
  },
  {
    name: 'scheduled cancellation, before it takes effect',
    invoices: monthlyRun(-1, 2),
    events: [event('e1', 'subscription_cancellation_scheduled', D(0), M(1))],
    mrr: 1000, arr: 12000, status: 'Active', since: M(-1), subs: [['Silver', 1000, 1]], acts: [[M(-1), 'new_biz', 1000, 1000]]
  },
  {
    name: 'scheduled cancellation, after it takes effect: churn',
    invoices: monthlyRun(-2, 2),
    events: [event('e1', 'subscription_cancellation_scheduled', M(-1) + 4 * DAY, M(0))],
    mrr: 0, arr: 0, status: 'Cancelled', since: M(-2), subs: [['Silver', 0, 1]],
    acts: [[M(-2), 'new_biz', 1000, 1000], [M(0), 'churn', -1000, 0]]
  },
  {
    name: 'scheduled cancellation retracted: no churn',
    invoices: monthlyRun(-2, 2),
    events: [
      event('e1', 'subscription_cancellation_scheduled', M(-1) + 4 * DAY, M(0)),
      event('e2', 'scheduled_subscription_cancellation_retracted', M(-1) + 6 * DAY, M(-1) + 6 * DAY)],
    mrr: 1000, arr: 12000, status: 'Past Due', since: M(-2), subs: [['Silver', 1000, 1]], acts: [[M(-2), 'new_biz', 1000, 1000]]
  },
  {
    name: 'one-time items only: stays a lead',
    invoices: [{ date: M(0), items: [{ type: 'one_time', amount_in_cents: 50000, quantity: 1, description: 'Setup' }] }],
    mrr: 0, arr: 0, status: 'New Lead', since: null, subs: [], acts: []
  }
];

// records turns scenarios into one json_imports payload: scenario i is customer s<i>, whose
// invoice, subscription and event external ids are prefixed with it (they are unique per
// data source).
function records (scenarios) {
  const p = { customers: [], plans: PLANS, invoices: [], line_items: [], transactions: [], subscription_events: [] };
  for (const s of scenarios) {
    const c = s.customer;
    p.customers.push({ external_id: c, name: s.name });
    s.invoices.forEach((inv, i) => {
      const ext = `${c}-i${i}`;
      p.invoices.push({ external_id: ext, customer_external_id: c, date: iso(inv.date), currency: 'USD', ...(inv.due ? { due_date: iso(inv.due) } : {}) });
      for (const it of inv.items) {
        p.line_items.push({ invoice_external_id: ext, ...(it.type === 'one_time' ? {} : { subscription_external_id: `${c}-sub` }), ...it });
      }
      for (const t of inv.txs || []) p.transactions.push({ invoice_external_id: ext, ...t });
    });
    for (const e of s.events || []) {
      p.subscription_events.push({ ...e, external_id: `${c}-${e.external_id}`, customer_external_id: c, subscription_external_id: `${c}-sub` });
    }
  }
  return p;
}

SCENARIOS.forEach((s, i) => { s.customer = `s${i}`; });

// Where each scenario's customer lives: its account's client config and data source.
const home = new Map();

before(async () => {
  const plain = await createAccount(unique('Scenarios'));
  const refund = await createAccount(unique('Scenarios refund_full_only'));
  await setSetting(refund.accountId, 'refund_handling', 'refund_full_only');
  await Promise.all([[plain, SCENARIOS.filter((s) => !s.refundFullOnly)], [refund, SCENARIOS.filter((s) => s.refundFullOnly)]]
    .map(async ([acc, scenarios]) => {
      const ds = await DataSource.create(acc.config, { name: unique('ds') });
      await importRecords(acc.config, ds.uuid, records(scenarios));
      for (const s of scenarios) home.set(s.customer, { config: acc.config, ds: ds.uuid });
      await settled(acc.config, ds.uuid, scenarios);
    }));
});

// settled waits (at most 60 s, without failing: each test then reports its own scenario)
// until every customer shows its expected mrr and status, with one list request at a
// time: seventeen tests polling at once would slow the stack they wait for.
async function settled (config, dsUUID, scenarios) {
  const deadline = Date.now() + 60000;
  while (Date.now() < deadline) {
    const list = await Customer.all(config, { data_source_uuid: dsUUID, per_page: 200 });
    const byExt = new Map(list.entries.map((c) => [c.external_id, c]));
    if (scenarios.every((s) => byExt.get(s.customer)?.mrr === s.mrr && byExt.get(s.customer)?.status === s.status)) return;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

describe('example scenarios of the metrics rules through json_imports', { concurrency: true }, () => {
  for (const s of SCENARIOS) {
    test(s.name, async () => {
      const { config, ds } = home.get(s.customer);
      const c = await until(`${s.customer} customer`, () => customerByExternalId(config, ds, s.customer),
        (c) => c.mrr === s.mrr && c.status === s.status);
      assert.equal(c.arr, s.arr);
      assert.equal(c['customer-since'], s.since === null ? null : offset(s.since));
      if (s.status === 'New Lead') {
        // A lead looks the same before and after its recomputation: check that its
        // invoices are there, so the records were taken and still make no subscriber.
        const invs = await Invoice.all(config, { customer_uuid: c.uuid });
        assert.equal(invs.invoices.length, s.invoices.length);
      }
      const wantActs = s.acts.map(([at, type, movement, mrr]) => [offset(at), type, movement, mrr]);
      const acts = await until(`${s.customer} activities`, () => Metrics.Customer.activities(config, c.uuid, {}),
        (a) => a.entries.length === wantActs.length);
      assert.deepEqual(acts.entries.map((a) => [a.date, a.type, a['activity-mrr-movement'], a['activity-mrr']]), wantActs);
      const subs = await Metrics.Customer.subscriptions(config, c.uuid, {});
      assert.deepEqual(subs.entries.map((e) => [e.plan, e.mrr, e.quantity]), s.subs);
    });
  }
});
