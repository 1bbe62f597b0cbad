// Bulk import through chartmogul-node 3.12.3: JsonImport create/retrieve up to
// `completed`, then the invoice, subscription, subscription-event and transaction
// operations the client offers on the imported records.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { ChartMogul, MILLIS_Z, SECONDS_Z, createAccount, idOf, rejection, resolvesNoContent, unique } from './lib/index.mjs';

const { Customer, DataSource, Invoice, JsonImport, Subscription, SubscriptionEvent, Transaction } = ChartMogul;

let acc;
let ds;
let customer;
let plan;

async function until (what, read, ok, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await read();
    if (ok(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  assert.fail(`${what}: still ${JSON.stringify(last)}`);
}

const invoiceRecords = (n) => Array.from({ length: n }, (_, i) => ({
  external_id: `inv-${i + 1}`, customer_external_id: 'cus-1', date: `2024-0${i + 1}-01`, currency: 'USD'
}));

before(async () => {
  acc = await createAccount(unique('Imports'));
  ds = await DataSource.create(acc.config, { name: unique('Imports DS') });
  const created = await JsonImport.create(acc.config, ds.uuid, {
    external_id: unique('imp'),
    customers: [{ external_id: 'cus-1', name: 'Imported One' }],
    plans: [{ external_id: 'gold', name: 'Gold', interval_count: 1, interval_unit: 'month' }],
    invoices: invoiceRecords(3),
    line_items: invoiceRecords(3).map((inv, i) => ({
      invoice_external_id: inv.external_id, type: 'subscription', subscription_external_id: 'sub-1', plan_external_id: 'gold',
      service_period_start: `2024-0${i + 1}-01`, service_period_end: `2024-0${i + 2}-01`, amount_in_cents: 1000, quantity: 1
    })),
    transactions: invoiceRecords(3).map((inv) => ({ invoice_external_id: inv.external_id, type: 'payment', result: 'successful', date: inv.date })),
    subscription_events: [{ customer_external_id: 'cus-1', event_type: 'subscription_cancelled', event_date: '2024-04-01',
      effective_date: '2024-04-01', subscription_external_id: 'sub-1', external_id: 'ev-imported' }]
  });
  assert.equal(created.status, 'queued');
  const done = await until('import', () => JsonImport.retrieve(acc.config, ds.uuid, created.id), (i) => i.status === 'completed');
  assert.equal(done.status_details['cus-1'].status, 'imported');
  const list = await Customer.all(acc.config, { data_source_uuid: ds.uuid, external_id: 'cus-1' });
  customer = list.entries[0];
  plan = (await ChartMogul.Plan.all(acc.config, { data_source_uuid: ds.uuid })).plans[0];
});

describe('json imports', () => {
  test('50 customers with plans, invoices, line items, transactions and events: completed and all readable', async () => {
    const ds50 = await DataSource.create(acc.config, { name: unique('Fifty') });
    const customers = []; const invoices = []; const lines = []; const txs = []; const events = [];
    for (let c = 0; c < 50; c++) {
      const cid = `c${c}`;
      customers.push({ external_id: cid, name: `Customer ${c}` });
      for (let m = 1; m <= 2; m++) {
        const iid = `${cid}-inv-${m}`;
        invoices.push({ external_id: iid, customer_external_id: cid, date: `2024-0${m}-01`, currency: 'USD' });
        lines.push({ invoice_external_id: iid, type: 'subscription', subscription_external_id: `${cid}-sub`, plan_external_id: 'silver',
          service_period_start: `2024-0${m}-01`, service_period_end: `2024-0${m + 1}-01`, amount_in_cents: 1000 + c, quantity: 1 });
        txs.push({ invoice_external_id: iid, type: 'payment', result: 'successful', date: `2024-0${m}-02` });
      }
      events.push({ customer_external_id: cid, event_type: 'subscription_start', event_date: '2024-01-01', effective_date: '2024-01-01',
        subscription_external_id: `${cid}-sub`, plan_external_id: 'silver', currency: 'USD', amount_in_cents: 1000 + c, external_id: `${cid}-ev` });
    }
    const created = await JsonImport.create(acc.config, ds50.uuid, {
      external_id: unique('fifty'), customers, invoices, line_items: lines, transactions: txs, subscription_events: events,
      plans: [{ external_id: 'silver', name: 'Silver', interval_count: 1, interval_unit: 'month' }]
    });
    const done = await until('50-customer import', () => JsonImport.retrieve(acc.config, ds50.uuid, created.id),
      (i) => i.status === 'completed', 120000);
    assert.equal(done.status_details.plans.status, 'imported');
    for (let c = 0; c < 50; c++) {
      const detail = done.status_details[`c${c}`];
      assert.equal(detail.status, 'imported', JSON.stringify(detail));
      for (const kind of ['customers', 'invoices', 'line_items', 'transactions', 'subscription_events']) {
        assert.equal(detail[kind].status, 'imported', `c${c} ${kind}`);
      }
    }
    const listed = await Customer.all(acc.config, { data_source_uuid: ds50.uuid, per_page: 200 });
    assert.equal(listed.entries.length, 50);
    for (const cus of listed.entries) {
      const c = Number(cus.external_id.slice(1));
      const mine = await Invoice.all(acc.config, cus.uuid);
      assert.equal(mine.invoices.length, 2, cus.external_id);
      for (const inv of mine.invoices) {
        assert.equal(inv.line_items.length, 1);
        assert.equal(inv.line_items[0].amount_in_cents, 1000 + c);
        assert.equal(inv.transactions.length, 1);
      }
      const subs = await Subscription.all(acc.config, cus.uuid);
      assert.equal(subs.subscriptions.length, 1, cus.external_id);
      assert.equal(subs.subscriptions[0].external_id, `${cus.external_id}-sub`);
    }
    const evs = await SubscriptionEvent.all(acc.config, { data_source_uuid: ds50.uuid, per_page: 200 });
    assert.equal(evs.subscription_events.length, 50);
  });

  test('a completed import is readable through the invoice and subscription views', async () => {
    const mine = await Invoice.all(acc.config, customer.uuid);
    assert.equal(mine.customer_uuid, customer.uuid);
    assert.equal(mine.invoices.length, 3);
    const any = await Invoice.all(acc.config, { data_source_uuid: ds.uuid });
    assert.equal(any.invoices.length, 3);
    assert.equal(any.invoices[0].customer_uuid, customer.uuid);
    assert.deepEqual(Object.keys(any), ['invoices', 'cursor', 'has_more']); // no legacy page keys (recorded)
    const one = await Invoice.retrieve(acc.config, any.invoices[0].uuid);
    assert.equal(one.external_id, any.invoices[0].external_id);
    assert.match(one.date, MILLIS_Z);
    const subs = await Subscription.all(acc.config, customer.uuid);
    assert.equal(subs.subscriptions.length, 1);
    assert.match(subs.subscriptions[0].uuid, idOf('sub'));
  });

  test('Subscription.cancel adds a cancellation date', async () => {
    const subs = await Subscription.all(acc.config, customer.uuid);
    const cancelled = await Subscription.cancel(acc.config, subs.subscriptions[0].uuid, { cancelled_at: '2024-05-01' });
    assert.deepEqual(cancelled.cancellation_dates, ['2024-05-01T00:00:00.000Z']);
  });

  test('Invoice.create imports one customer\'s invoices synchronously', async () => {
    const out = await Invoice.create(acc.config, customer.uuid, {
      invoices: [{
        external_id: 'inv-sync', date: '2024-06-01 00:00:00', currency: 'USD', data_source_uuid: ds.uuid,
        line_items: [{ type: 'subscription', subscription_external_id: 'sub-1', plan_uuid: plan.uuid,
          service_period_start: '2024-06-01', service_period_end: '2024-07-01', amount_in_cents: 1000, quantity: 1 }],
        transactions: [{ date: '2024-06-02', type: 'payment', result: 'successful' }]
      }]
    });
    assert.equal(out.invoices.length, 1);
    assert.deepEqual(out.invoices[0].errors, {});
    assert.match(out.invoices[0].uuid, idOf('inv'));
    assert.equal(out.invoices[0].line_items[0].plan_uuid, plan.uuid);
    const body = await rejection(Invoice.create(acc.config, customer.uuid, { invoices: [{ external_id: 'bad', date: 'nope', currency: 'USD' }] }), 422);
    assert.equal(body.error_details[0].param, 'invoices[0].date');
  });

  test('Transaction.create adds a refund', async () => {
    const inv = (await Invoice.all(acc.config, { data_source_uuid: ds.uuid, external_id: 'inv-1' })).invoices[0];
    const tr = await Transaction.create(acc.config, inv.uuid, { type: 'refund', date: '2024-01-15', result: 'successful', external_id: 'refund-1', amount_in_cents: 300 });
    assert.equal(tr.type, 'refund');
    assert.equal(tr.external_id, 'refund-1');
    assert.match(tr.uuid, idOf('tr'));
    const again = await Invoice.retrieve(acc.config, inv.uuid);
    assert.equal(again.transactions.length, 2);
  });

  test('subscription events: create, all, updateWithParams, deleteWithParams', async () => {
    const ev = await SubscriptionEvent.create(acc.config, {
      data_source_uuid: ds.uuid, customer_external_id: 'cus-1', event_type: 'subscription_start', event_date: '2024-08-01',
      effective_date: '2024-08-01', subscription_external_id: 'sub-2', plan_external_id: 'gold', currency: 'USD',
      amount_in_cents: 2000, external_id: 'ev-created'
    });
    assert.equal(ev.external_id, 'ev-created');
    assert.match(ev.event_date, SECONDS_Z);
    assert.deepEqual(ev.errors, {});
    const all = await SubscriptionEvent.all(acc.config, { data_source_uuid: ds.uuid });
    assert.equal(all.subscription_events.length, 2);
    assert.equal(all.meta.page, 1);
    const updated = await SubscriptionEvent.updateWithParams(acc.config, { id: ev.id, amount_in_cents: 2500 });
    assert.equal(updated.amount_in_cents, 2500);
    await resolvesNoContent(SubscriptionEvent.deleteWithParams(acc.config, { id: ev.id }));
    const left = await SubscriptionEvent.all(acc.config, { data_source_uuid: ds.uuid });
    assert.deepEqual(left.subscription_events.map((e) => e.external_id), ['ev-imported']);
  });

  test('Invoice.destroy removes an invoice', async () => {
    const inv = (await Invoice.all(acc.config, { data_source_uuid: ds.uuid, external_id: 'inv-sync' })).invoices[0];
    await resolvesNoContent(Invoice.destroy(acc.config, inv.uuid));
    await rejection(Invoice.retrieve(acc.config, inv.uuid), 404);
  });

  test('Invoice.destroyByExternalId removes an invoice named by its data source and external id', async () => {
    await Invoice.create(acc.config, customer.uuid, {
      invoices: [{ external_id: 'inv-by-ext', date: '2024-07-01', currency: 'USD', data_source_uuid: ds.uuid,
        line_items: [{ type: 'one_time', amount_in_cents: 100 }] }]
    });
    await resolvesNoContent(Invoice.destroyByExternalId(acc.config, { qs: { data_source_uuid: ds.uuid, external_id: 'inv-by-ext' } }));
    assert.deepEqual((await Invoice.all(acc.config, { data_source_uuid: ds.uuid, external_id: 'inv-by-ext' })).invoices, []);
  });
});
