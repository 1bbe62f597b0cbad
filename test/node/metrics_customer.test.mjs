// Per-customer metrics end to end: records imported through json_imports, then
// the customer's mrr, arr, status and customer-since, its Metrics-API subscriptions and
// its activities, read through chartmogul-node 3.12.3. The example scenarios of the
// metrics rules are in metrics_scenarios.test.mjs.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ChartMogul, SECONDS_OFFSET, admin, createAccount, familyB, rejection, rejectsWith, unique } from './lib/index.mjs';
import { DAY, customerByExternalId as byExternalId, importRecords, iso, monthStart, offset, until } from './lib/metrics.mjs';

const { Customer, DataSource, Invoice, Metrics } = ChartMogul;

let acc;

before(async () => {
  acc = await createAccount(unique('Metrics'));
});

const importCustomer = (ds, payload) => importRecords(acc.config, ds.uuid, payload);
const customerByExternalId = (ds, externalId) => byExternalId(acc.config, ds.uuid, externalId);

function invoice (ext, customer, start, months, amount, extra = {}) {
  return {
    invoice: { external_id: ext, customer_external_id: customer, date: iso(start), currency: extra.currency || 'USD' },
    line: {
      invoice_external_id: ext, type: 'subscription', subscription_external_id: extra.sub || 'sub-1',
      plan_external_id: extra.plan || 'monthly', service_period_start: iso(start),
      service_period_end: iso(Date.UTC(new Date(start).getUTCFullYear(), new Date(start).getUTCMonth() + months, 1)),
      amount_in_cents: amount, quantity: extra.quantity || 1, ...(extra.cancelled_at ? { cancelled_at: iso(extra.cancelled_at) } : {})
    },
    payment: { invoice_external_id: ext, type: 'payment', result: 'successful', date: iso(start) }
  };
}

function payload (customer, invoices, plans = [{ external_id: 'monthly', name: 'Monthly', interval_count: 1, interval_unit: 'month' }]) {
  return {
    customers: [{ external_id: customer, name: customer }],
    plans,
    invoices: invoices.map((i) => i.invoice),
    line_items: invoices.map((i) => i.line),
    transactions: invoices.map((i) => i.payment)
  };
}

describe('customer metrics through json_imports', () => {
  test('monthly plan: mrr, arr, status, customer-since, subscriptions and activities', async () => {
    const ds = await DataSource.create(acc.config, { name: unique('ds') });
    const start = monthStart(-2);
    await importCustomer(ds, payload('m1', [0, 1, 2].map((m) => invoice(`m1-${m}`, 'm1', monthStart(m - 2), 1, 1000))));
    const c = await until('customer', () => customerByExternalId(ds, 'm1'), (c) => c.mrr === 1000);
    assert.equal(c.arr, 12000);
    assert.equal(c.status, 'Active');
    assert.equal(c['customer-since'], offset(start));

    const subs = await Metrics.Customer.subscriptions(acc.config, c.uuid, {});
    assert.equal(subs.entries.length, 1);
    const s = subs.entries[0];
    assert.equal(s.external_id, 'sub-1');
    assert.equal(s.mrr, 1000);
    assert.equal(s.arr, 12000);
    assert.equal(s.status, 'active');
    assert.equal(s.plan, 'Monthly');
    assert.equal(s['billing-cycle'], 'month');
    assert.equal(s['billing-cycle-count'], 1);
    assert.equal(s['start-date'], offset(start));
    assert.match(s['end-date'], SECONDS_OFFSET);
    assert.equal(subs.has_more, false);

    const acts = await until('activities', () => Metrics.Customer.activities(acc.config, c.uuid, {}), (a) => a.entries.length === 1);
    assert.equal(acts.entries[0].type, 'new_biz');
    assert.equal(acts.entries[0]['activity-mrr-movement'], 1000);
    assert.equal(acts.entries[0]['activity-mrr'], 1000);
    assert.equal(acts.entries[0]['activity-arr'], 12000);
    assert.equal(acts.entries[0].date, offset(start));
    assert.equal(acts.entries[0].description, 'purchased the Monthly plan');
  });

  test('annual plan: 200000 a year is 16667 a month', async () => {
    const ds = await DataSource.create(acc.config, { name: unique('ds') });
    const annual = [{ external_id: 'annual', name: 'Annual', interval_count: 1, interval_unit: 'year' }];
    await importCustomer(ds, payload('a1', [invoice('a1-0', 'a1', monthStart(-1), 12, 200000, { plan: 'annual' })], annual));
    const c = await until('customer', () => customerByExternalId(ds, 'a1'), (c) => c.mrr === 16667);
    assert.equal(c.arr, 200004);
    assert.equal(c.status, 'Active');
  });

  test('cancellation: the customer churns and is Cancelled', async () => {
    const ds = await DataSource.create(acc.config, { name: unique('ds') });
    const cancelAt = monthStart(-1) + 10 * DAY;
    await importCustomer(ds, payload('x1', [
      invoice('x1-0', 'x1', monthStart(-2), 1, 1000),
      invoice('x1-1', 'x1', monthStart(-1), 1, 1000, { cancelled_at: cancelAt })
    ]));
    const c = await until('customer', () => customerByExternalId(ds, 'x1'), (c) => c.status === 'Cancelled');
    assert.equal(c.mrr, 0);
    assert.equal(c['customer-since'], offset(monthStart(-2)));
    const acts = await until('activities', () => Metrics.Customer.activities(acc.config, c.uuid, {}), (a) => a.entries.length === 2);
    assert.deepEqual(acts.entries.map((a) => a.type), ['new_biz', 'churn']);
    assert.equal(acts.entries[1].date, offset(cancelAt));
    const subs = await Metrics.Customer.subscriptions(acc.config, c.uuid, {});
    assert.equal(subs.entries[0].status, 'inactive');
  });

  test('foreign currency: invalid without a rate, converted once the rate is loaded', async () => {
    const ds = await DataSource.create(acc.config, { name: unique('ds') });
    const start = monthStart(0);
    const records = payload('f1', [invoice('f1-0', 'f1', start, 1, 10000, { currency: 'EUR' })]);
    await importCustomer(ds, records);
    const lead = await customerByExternalId(ds, 'f1');
    assert.equal(lead.mrr, 0);
    const dir = mkdtempSync(join(tmpdir(), 'fx-'));
    writeFileSync(join(dir, 'rates.csv'), `date,currency,rate\n${iso(start).slice(0, 10)},EUR,1.090861\n`);
    await admin('load-fx-rates', '-account', acc.accountId, '-file', join(dir, 'rates.csv'));
    await importCustomer(ds, records); // the same records again: a recomputation, now with the rate
    const c = await until('customer', () => customerByExternalId(ds, 'f1'), (c) => c.mrr === 10908 && c.arr === 130896);
    assert.equal(c.status, 'Active');
  });

  test('exchange-rate drift: a renewal at a new rate is no expansion, /mrr carries the impact', async () => {
    const fx = await createAccount(unique('FX'));
    const ds = await DataSource.create(fx.config, { name: unique('ds') });
    const day = (ms) => iso(ms).slice(0, 10);
    const [previous, current] = [monthStart(-1), monthStart(0)];
    await importRecords(fx.config, ds.uuid, payload('gb', [previous, current].map((start, m) =>
      invoice(`gb-${m}`, 'gb', start, 1, 5000, { currency: 'GBP' }))));
    const dir = mkdtempSync(join(tmpdir(), 'fx-'));
    writeFileSync(join(dir, 'rates.csv'), `date,currency,rate\n${day(previous)},GBP,1.25\n${day(current)},GBP,1.27\n`);
    await admin('load-fx-rates', '-account', fx.accountId, '-file', join(dir, 'rates.csv'));
    const c = await until('customer', () => byExternalId(fx.config, ds.uuid, 'gb'), (c) => c.mrr === 6350);
    assert.equal(c.arr, 76200);
    const acts = await Metrics.Customer.activities(fx.config, c.uuid, {});
    assert.deepEqual(acts.entries.map((a) => [a.type, a['activity-mrr-movement'], a['activity-mrr']]), [['new_biz', 6250, 6250]]);

    const q = { 'start-date': day(previous), 'end-date': day(Date.now()), interval: 'month' };
    const r = await until('series', () => Metrics.mrr(fx.config, q), (r) => r.entries.at(-1)?.mrr === 6350);
    const keys = ['mrr', 'mrr-new-business', 'mrr-expansion', 'mrr-contraction', 'mrr-exchange-rate-impact'];
    assert.deepEqual(r.entries.map((e) => keys.map((k) => e[k])), [[6250, 6250, 0, 0, 0], [6350, 0, 0, 0, 100]]);
    let mrr = 0;
    for (const e of r.entries) {
      mrr += e['mrr-new-business'] + e['mrr-expansion'] + e['mrr-contraction'] + e['mrr-churn'] + e['mrr-reactivation'] +
        e['mrr-exchange-rate-impact'];
      assert.equal(mrr, e.mrr);
    }
  });

  test('migration: merge the two records, then connect the two subscriptions', async () => {
    const ds = await DataSource.create(acc.config, { name: unique('ds') });
    const switchAt = monthStart(-1);
    await importCustomer(ds, payload('old', [
      invoice('old-0', 'old', monthStart(-3), 1, 1000, { sub: 'old-sub' }),
      invoice('old-1', 'old', monthStart(-2), 1, 1000, { sub: 'old-sub', cancelled_at: switchAt })
    ]));
    await importCustomer(ds, payload('new', [
      invoice('new-0', 'new', switchAt, 1, 1200, { sub: 'new-sub' }),
      invoice('new-1', 'new', monthStart(0), 1, 1200, { sub: 'new-sub' })
    ]));
    const oldC = await until('old', () => customerByExternalId(ds, 'old'), (c) => c.status === 'Cancelled');
    const newC = await until('new', () => customerByExternalId(ds, 'new'), (c) => c.mrr === 1200);

    await rejection(Customer.merge(acc.config, { from: { customer_uuid: oldC.uuid }, into: { customer_uuid: oldC.uuid } }), 422);
    const merged = await Customer.merge(acc.config, {
      from: { data_source_uuid: ds.uuid, external_id: 'new' }, into: { customer_uuid: oldC.uuid }
    });
    assert.deepEqual(merged, {});
    const c = await until('merged', () => Customer.retrieve(acc.config, oldC.uuid), (c) => c.mrr === 1200 && c.external_ids.length === 2);
    assert.ok(c.attributes.tags.includes('merged-customer'));
    assert.equal(c['customer-since'], offset(monthStart(-3)));
    await rejection(Customer.retrieve(acc.config, newC.uuid), 404);

    await rejection(Metrics.Customer.connectSubscriptions(acc.config, ds.uuid, c.uuid, [{ uuid: 'sub_00000000-0000-4000-8000-000000000000' }, { uuid: 'sub_00000000-0000-4000-8000-000000000001' }]), 404);
    const connected = await Customer.connectSubscriptions(acc.config, c.uuid, {
      subscriptions: [{ data_source_uuid: ds.uuid, external_id: 'old-sub' }, { data_source_uuid: ds.uuid, external_id: 'new-sub' }]
    });
    assert.deepEqual(connected, {});
    const subs = await until('connected', () => Metrics.Customer.subscriptions(acc.config, c.uuid, {}), (s) => s.entries.length === 1);
    assert.equal(subs.entries[0].external_id, 'new-sub');
    assert.equal(subs.entries[0]['start-date'], offset(monthStart(-3)));
    const acts = await Metrics.Customer.activities(acc.config, c.uuid, {});
    assert.deepEqual(acts.entries.map((a) => a.type), ['new_biz', 'expansion']);
    assert.equal(acts.entries[1]['activity-mrr-movement'], 200);

    // Disconnect names both subscriptions by their Import-API uuids.
    const imported = (await ChartMogul.Subscription.all(acc.config, c.uuid)).subscriptions;
    assert.equal(imported.length, 2);
    const apart = await Metrics.Customer.disconnectSubscriptions(acc.config, ds.uuid, c.uuid,
      imported.map((s) => ({ uuid: s.uuid })));
    assert.deepEqual(apart, {});
    await until('disconnected', () => Metrics.Customer.subscriptions(acc.config, c.uuid, {}), (s) => s.entries.length === 2);
  });

  test('invoice status: a voided or written-off invoice stops counting', async () => {
    const ds = await DataSource.create(acc.config, { name: unique('ds') });
    const records = payload('v1', [invoice('v1-0', 'v1', monthStart(-1), 1, 1000), invoice('v1-1', 'v1', monthStart(0), 1, 3000)]);
    await importCustomer(ds, records);
    let c = await until('imported', () => customerByExternalId(ds, 'v1'), (c) => c.mrr === 3000);
    assert.equal(c.status, 'Active');
    const types = (acts) => acts.entries.map((a) => `${a.type} ${a['activity-mrr-movement']}`);
    await until('activities', () => Metrics.Customer.activities(acc.config, c.uuid, {}),
      (a) => types(a).join() === 'new_biz 1000,expansion 2000');

    // Voiding this month's invoice takes the expansion away; the subscription is not
    // extended, so the customer is Past Due since last month's period ended.
    assert.deepEqual(await Invoice.updateStatus(acc.config, ds.uuid, 'v1-1', { status: 'voided' }),
      { external_id: 'v1-1', status: 'voided' });
    c = await until('voided', () => customerByExternalId(ds, 'v1'), (c) => c.mrr === 1000);
    assert.equal(c.arr, 12000);
    assert.equal(c.status, 'Past Due');
    assert.equal(c['customer-since'], offset(monthStart(-1)));
    await until('activities after void', () => Metrics.Customer.activities(acc.config, c.uuid, {}),
      (a) => types(a).join() === 'new_biz 1000');
    const subs = await Metrics.Customer.subscriptions(acc.config, c.uuid, {});
    assert.deepEqual(subs.entries.map((s) => [s.mrr, s['end-date']]), [[1000, offset(monthStart(0))]]);
    const listed = await Invoice.all(acc.config, { data_source_uuid: ds.uuid, external_id: 'v1-1' });
    assert.equal(listed.invoices[0].status, 'voided');

    // The same status again is accepted; a voided invoice is final; errors are family B.
    assert.deepEqual(await Invoice.updateStatus(acc.config, ds.uuid, 'v1-1', { status: 'voided' }),
      { external_id: 'v1-1', status: 'voided' });
    await rejectsWith(Invoice.updateStatus(acc.config, ds.uuid, 'v1-1', { status: 'written_off' }), 422,
      familyB('Status transition is not allowed', 'status'));
    await rejectsWith(Invoice.updateStatus(acc.config, ds.uuid, 'v1-1', { status: 'paid' }), 422,
      familyB('Status must be one of voided, written_off', 'status'));
    await rejectsWith(Invoice.updateStatus(acc.config, ds.uuid, 'v1-9', { status: 'voided' }), 404,
      familyB('Invoice not found', 'invoice'));
    await rejection(Invoice.updateStatus(acc.config, 'ds_00000000-0000-4000-8000-000000000000', 'v1-1', { status: 'voided' }), 404);

    // Importing the same records again does not clear the status.
    await importCustomer(ds, records);
    assert.equal((await Invoice.all(acc.config, { data_source_uuid: ds.uuid, external_id: 'v1-1' })).invoices[0].status, 'voided');

    // Writing off the other invoice leaves nothing: a lead without subscriptions or activities.
    assert.deepEqual(await Invoice.updateStatus(acc.config, ds.uuid, 'v1-0', { status: 'written_off' }),
      { external_id: 'v1-0', status: 'written_off' });
    c = await until('written off', () => customerByExternalId(ds, 'v1'), (c) => c.status === 'New Lead');
    assert.equal(c.mrr, 0);
    assert.equal(c['customer-since'], null);
    await until('no activities', () => Metrics.Customer.activities(acc.config, c.uuid, {}), (a) => a.entries.length === 0);
    assert.deepEqual((await Metrics.Customer.subscriptions(acc.config, c.uuid, {})).entries, []);
  });
});
