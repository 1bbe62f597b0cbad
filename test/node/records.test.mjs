// Billing records through chartmogul-node 3.12.3: line items and transactions (by uuid
// and by data source + external id), the disabled states of invoices, line items,
// transactions and subscription events with their effect on the metrics, invoice
// updates and deletion of a customer's invoices, the json_imports listing, Plan.update
// (PUT), the data sources' with_* flags and the activities export.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { ChartMogul, MILLIS_Z, SECONDS_OFFSET, createAccount, familyB, idOf, rejectsWith, resolvesNoContent, setSetting, unique } from './lib/index.mjs';
import { customerByExternalId, importRecords, iso, monthStart, until } from './lib/metrics.mjs';

const { Customer, DataSource, Invoice, JsonImport, LineItem, Metrics, Plan, SubscriptionEvent, Transaction } = ChartMogul;

let acc;
let ds;
let plan;

before(async () => {
  acc = await createAccount(unique('Records'));
  ds = await DataSource.create(acc.config, { name: unique('Records DS') });
  plan = await Plan.create(acc.config, { data_source_uuid: ds.uuid, name: 'Gold', external_id: 'gold', interval_count: 1, interval_unit: 'month' });
});

// A customer with one invoice per month from months ago to this month, each with one
// line item ("li-<ext>") and one payment ("tr-<ext>"); ext = `${customer}-${m}`.
async function billedCustomer (customer, months, amount = 1000) {
  const exts = Array.from({ length: months }, (_, m) => `${customer}-${m}`);
  await importRecords(acc.config, ds.uuid, {
    customers: [{ external_id: customer, name: customer }],
    invoices: exts.map((ext, m) => ({ external_id: ext, customer_external_id: customer, date: iso(monthStart(m - months + 1)), currency: 'USD' })),
    line_items: exts.map((ext, m) => ({
      invoice_external_id: ext, external_id: `li-${ext}`, type: 'subscription', subscription_external_id: `${customer}-sub`,
      plan_external_id: 'gold', service_period_start: iso(monthStart(m - months + 1)), service_period_end: iso(monthStart(m - months + 2)),
      amount_in_cents: amount * (m + 1)
    })),
    transactions: exts.map((ext, m) => ({ invoice_external_id: ext, external_id: `tr-${ext}`, type: 'payment', result: 'successful',
      date: iso(monthStart(m - months + 1)) }))
  });
  return customerByExternalId(acc.config, ds.uuid, customer);
}

const byExt = (external_id) => ({ data_source_uuid: ds.uuid, external_id }); // eslint-disable-line camelcase

// What the metrics show of a customer: figures, Metrics-API subscriptions, activities.
async function metricsOf (uuid) {
  const c = await Customer.retrieve(acc.config, uuid);
  const subs = await Metrics.Customer.subscriptions(acc.config, uuid, {});
  const acts = await Metrics.Customer.activities(acc.config, uuid, {});
  return { mrr: c.mrr, arr: c.arr, status: c.status, since: c['customer-since'], subscriptions: subs.entries, activities: acts.entries };
}

const settled = (uuid, ok) => until('metrics', () => metricsOf(uuid), ok, 60000);

describe('disabled records stop counting and enabling restores the metrics exactly', () => {
  test('line item, transaction and invoice, by uuid and by external id', async () => {
    const c = await billedCustomer('dis-1', 2);
    const before = await settled(c.uuid, (m) => m.mrr === 2000);
    const [last] = (await Invoice.all(acc.config, { data_source_uuid: ds.uuid, external_id: 'dis-1-1' })).invoices;
    const line = last.line_items[0].uuid;

    const disabled = await LineItem.disable(acc.config, line);
    assert.equal(disabled.uuid, line);
    assert.equal(disabled.disabled, true);
    assert.match(disabled.disabled_at, MILLIS_Z);
    assert.equal(disabled.disabled_by, null); // an account made by admin has no team member
    const without = await settled(c.uuid, (m) => m.mrr === 1000);
    assert.equal(without.subscriptions.length, 1);
    const enabled = await LineItem.enable(acc.config, line);
    assert.equal(enabled.disabled, false);
    assert.equal(enabled.disabled_at, null);
    assert.deepEqual(await settled(c.uuid, (m) => m.mrr === 2000), before);

    // Every other form: the state flips, the metrics follow and come back exactly.
    for (const [disable, enable] of [
      [() => LineItem.disable(acc.config, byExt('li-dis-1-1')), () => LineItem.enable(acc.config, byExt('li-dis-1-1'))],
      [() => LineItem.disableByExternalId(acc.config, byExt('li-dis-1-1')), () => LineItem.enableByExternalId(acc.config, byExt('li-dis-1-1'))],
      [() => Invoice.disable(acc.config, last.uuid), () => Invoice.enable(acc.config, last.uuid)],
      [() => Invoice.disableByExternalId(acc.config, byExt('dis-1-1')), () => Invoice.enableByExternalId(acc.config, byExt('dis-1-1'))]
    ]) {
      assert.equal((await disable()).disabled, true);
      await settled(c.uuid, (m) => m.mrr === 1000);
      assert.equal((await enable()).disabled, false);
      assert.deepEqual(await settled(c.uuid, (m) => m.mrr === 2000), before);
    }
  });

  test('a failed payment disabled: no longer past due, and back', async () => {
    const c = await billedCustomer('dis-2', 1);
    const tx = await Transaction.update(acc.config, { qs: byExt('tr-dis-2-0'), result: 'failed' });
    assert.equal(tx.result, 'failed');
    const pastDue = await settled(c.uuid, (m) => m.status === 'Past Due');
    for (const [disable, enable] of [
      [() => Transaction.disable(acc.config, tx.uuid), () => Transaction.enable(acc.config, tx.uuid)],
      [() => Transaction.disable(acc.config, byExt('tr-dis-2-0')), () => Transaction.enable(acc.config, byExt('tr-dis-2-0'))],
      [() => Transaction.disableByExternalId(acc.config, byExt('tr-dis-2-0')), () => Transaction.enableByExternalId(acc.config, byExt('tr-dis-2-0'))]
    ]) {
      const d = await disable();
      assert.deepEqual([d.uuid, d.disabled], [tx.uuid, true]);
      await settled(c.uuid, (m) => m.status === 'Active');
      assert.equal((await enable()).disabled, false);
      assert.deepEqual(await settled(c.uuid, (m) => m.status === 'Past Due'), pastDue);
    }
  });

  test('a subscription event disabled and enabled', async () => {
    const c = await billedCustomer('dis-3', 1);
    const ev = await SubscriptionEvent.create(acc.config, {
      data_source_uuid: ds.uuid, customer_external_id: 'dis-3', subscription_external_id: 'dis-3-sub', external_id: 'ev-dis-3',
      event_type: 'subscription_cancelled', event_date: iso(Date.now() - 86400000), effective_date: iso(Date.now() - 86400000)
    });
    const cancelled = await settled(c.uuid, (m) => m.status === 'Cancelled');
    const d = await SubscriptionEvent.disable(acc.config, ev.id);
    assert.deepEqual([d.id, d.disabled, d.external_id], [ev.id, true, 'ev-dis-3']);
    await settled(c.uuid, (m) => m.status === 'Active' && m.mrr === 1000);
    const listed = await SubscriptionEvent.all(acc.config, { data_source_uuid: ds.uuid, external_id: 'ev-dis-3' });
    assert.equal(listed.subscription_events.length, 0);
    const all = await SubscriptionEvent.all(acc.config, { data_source_uuid: ds.uuid, external_id: 'ev-dis-3', with_disabled: true });
    assert.equal(all.subscription_events[0].disabled, true);
    assert.equal((await SubscriptionEvent.enable(acc.config, ev.id)).disabled, false);
    assert.deepEqual(await settled(c.uuid, (m) => m.status === 'Cancelled'), cancelled);
  });

  test('disabled records are shown only with with_disabled', async () => {
    const c = await billedCustomer('dis-4', 1);
    await LineItem.disable(acc.config, byExt('li-dis-4-0'));
    const plain = await Invoice.all(acc.config, { customer_uuid: c.uuid });
    assert.deepEqual(plain.invoices[0].line_items, []);
    const all = await Invoice.all(acc.config, { customer_uuid: c.uuid, with_disabled: true });
    assert.equal(all.invoices[0].line_items[0].disabled, true);
    assert.equal(all.invoices[0].disabled, false);
    const missing = await rejectsWith(LineItem.all(acc.config, byExt('li-dis-4-0')), 404, familyB('Line item not found', 'line_item'));
    assert.ok(missing);
    const shown = await LineItem.all(acc.config, { ...byExt('li-dis-4-0'), with_disabled: true });
    assert.equal(shown.disabled, true);
  });
});

describe('line items', () => {
  test('create, retrieve, modify, update, destroy, by uuid and by external id', async () => {
    const c = await billedCustomer('li-1', 1);
    const [inv] = (await Invoice.all(acc.config, { customer_uuid: c.uuid })).invoices;
    const created = await LineItem.create(acc.config, inv.uuid, {
      type: 'subscription', external_id: 'li-added', subscription_external_id: 'li-1-addon', plan_uuid: plan.uuid,
      service_period_start: iso(monthStart(0)), service_period_end: iso(monthStart(1)), amount_in_cents: 500
    });
    assert.match(created.uuid, idOf('li'));
    assert.deepEqual([created.external_id, created.amount_in_cents, created.plan_uuid, created.disabled], ['li-added', 500, plan.uuid, false]);
    assert.match(created.subscription_uuid, idOf('sub'));
    await settled(c.uuid, (m) => m.mrr === 1500);

    assert.equal((await LineItem.retrieve(acc.config, created.uuid)).external_id, 'li-added');
    assert.equal((await LineItem.all(acc.config, byExt('li-added'))).uuid, created.uuid);
    assert.equal((await LineItem.modify(acc.config, created.uuid, { amount_in_cents: 700 })).amount_in_cents, 700);
    const updated = await LineItem.update(acc.config, { qs: byExt('li-added'), quantity: 3 });
    assert.deepEqual([updated.uuid, updated.quantity, updated.amount_in_cents], [created.uuid, 3, 700]);
    await settled(c.uuid, (m) => m.mrr === 1700);

    await rejectsWith(LineItem.modify(acc.config, created.uuid, { external_id: 'another' }), 422,
      familyB('The external_id of a line item cannot change', 'external_id'));
    await resolvesNoContent(LineItem.destroy(acc.config, created.uuid));
    await rejectsWith(LineItem.retrieve(acc.config, created.uuid), 404, familyB('Line item not found', 'line_item'));
    await settled(c.uuid, (m) => m.mrr === 1000);
    await resolvesNoContent(LineItem.destroyByExternalId(acc.config, { qs: byExt('li-li-1-0') }));
    await settled(c.uuid, (m) => m.mrr === 0 && m.status === 'New Lead');
    await rejectsWith(LineItem.all(acc.config, byExt('li-li-1-0')), 404, familyB('Line item not found', 'line_item'));
  });
});

describe('transactions', () => {
  test('retrieve, all, modify, update, destroy, destroyByExternalId', async () => {
    await billedCustomer('tr-1', 2);
    const [inv] = (await Invoice.all(acc.config, { data_source_uuid: ds.uuid, external_id: 'tr-1-0' })).invoices;
    const uuid = inv.transactions[0].uuid;
    const got = await Transaction.retrieve(acc.config, uuid);
    assert.deepEqual([got.uuid, got.external_id, got.type, got.result, got.disabled], [uuid, 'tr-tr-1-0', 'payment', 'successful', false]);
    assert.match(got.date, MILLIS_Z);
    assert.equal((await Transaction.all(acc.config, byExt('tr-tr-1-0'))).uuid, uuid);
    const modified = await Transaction.modify(acc.config, uuid, { amount_in_cents: 400 });
    assert.equal(modified.amount_in_cents, 400);
    assert.equal((await Transaction.update(acc.config, { qs: byExt('tr-tr-1-0'), type: 'refund' })).type, 'refund');
    await resolvesNoContent(Transaction.destroy(acc.config, uuid));
    await rejectsWith(Transaction.retrieve(acc.config, uuid), 404, familyB('Transaction not found', 'transaction'));
    await resolvesNoContent(Transaction.destroyByExternalId(acc.config, { qs: byExt('tr-tr-1-1') }));
    const [after] = (await Invoice.all(acc.config, { data_source_uuid: ds.uuid, external_id: 'tr-1-1' })).invoices;
    assert.deepEqual(after.transactions, []);
  });
});

describe('invoices', () => {
  test('modify, update and destroyAll', async () => {
    const c = await billedCustomer('inv-1', 2);
    const [inv] = (await Invoice.all(acc.config, { data_source_uuid: ds.uuid, external_id: 'inv-1-0' })).invoices;
    const due = iso(monthStart(0) + 86400000 * 10);
    const modified = await Invoice.modify(acc.config, inv.uuid, { due_date: due, collection_method: 'manual' });
    assert.deepEqual([modified.uuid, modified.due_date, modified.collection_method, modified.disabled],
      [inv.uuid, due.replace('Z', '').replace(/\.\d{3}$/, '') + '.000Z', 'manual', false]);
    const updated = await Invoice.update(acc.config, { qs: byExt('inv-1-1'), collection_method: 'automatic' });
    assert.equal(updated.collection_method, 'automatic');
    assert.equal(updated.external_id, 'inv-1-1');
    await settled(c.uuid, (m) => m.mrr === 2000);
    // The modify above is a user edit: Invoice.all with include_edit_histories (as
    // chartmogul-node's own tests call it) shows what it changed; without it, no summary.
    const [edited] = (await Invoice.all(acc.config, { data_source_uuid: ds.uuid, external_id: 'inv-1-0', include_edit_histories: true })).invoices;
    assert.deepEqual(edited.edit_history_summary.values_changed, {
      due_date: { original_value: null, edited_value: modified.due_date },
      collection_method: { original_value: null, edited_value: 'manual' }
    });
    assert.match(edited.edit_history_summary.latest_edit_performed_at, MILLIS_Z);
    assert.equal(typeof edited.edit_history_summary.latest_edit_author, 'string');
    assert.equal(edited.user_created, false);
    const [plain] = (await Invoice.all(acc.config, { data_source_uuid: ds.uuid, external_id: 'inv-1-0' })).invoices;
    assert.ok(!('edit_history_summary' in plain));
    assert.deepEqual(await Invoice.destroyAll(acc.config, ds.uuid, c.uuid), {});
    assert.deepEqual((await Invoice.all(acc.config, { customer_uuid: c.uuid })).invoices, []);
    await settled(c.uuid, (m) => m.mrr === 0 && m.status === 'New Lead');
  });
});

describe('json imports, plans, data sources', () => {
  test('JsonImport.all lists the data source imports', async () => {
    const own = await DataSource.create(acc.config, { name: unique('Listed') });
    const done = await importRecords(acc.config, own.uuid, { customers: [{ external_id: 'listed', name: 'Listed' }] });
    const list = await JsonImport.all(acc.config, own.uuid);
    assert.deepEqual(Object.keys(list), ['json_imports', 'cursor', 'has_more']);
    assert.equal(list.json_imports.length, 1);
    assert.deepEqual([list.json_imports[0].id, list.json_imports[0].status, list.has_more], [done.id, 'completed', false]);
  });

  test('Plan.update sends PUT and answers 202 with the plan', async () => {
    const p = await Plan.create(acc.config, { data_source_uuid: ds.uuid, name: 'Bronze', interval_count: 1, interval_unit: 'month' });
    const updated = await Plan.update(acc.config, p.uuid, { name: 'Bronze renamed' });
    assert.deepEqual([updated.uuid, updated.name], [p.uuid, 'Bronze renamed']);
    assert.equal((await Plan.retrieve(acc.config, p.uuid)).name, 'Bronze renamed');
  });

  test('data sources with processing status and settings', async () => {
    const other = await createAccount(unique('Flags'));
    const own = await DataSource.create(other.config, { name: unique('Flags DS') });
    await importRecords(other.config, own.uuid, { customers: [{ external_id: 'a', name: 'A' }, { external_id: 'b', name: 'B' }] });
    await setSetting(other.accountId, 'auto_churn_subscription', 'true');
    const flags = { with_processing_status: true, with_auto_churn_subscription_setting: true, with_invoice_handling_setting: true };
    const got = await DataSource.retrieve(other.config, own.uuid, flags);
    assert.deepEqual(got.processing_status, { processed: 2, failed: 0, pending: 0 });
    assert.deepEqual(got.auto_churn_subscription_setting, { enabled: true, interval: 30 });
    assert.deepEqual(got.invoice_handling_setting.manual, {
      create_subscription_when_invoice_is: 'open', update_subscription_when_invoice_is: 'open',
      prevent_subscription_for_invoice_voided: true, prevent_subscription_for_invoice_refunded: false,
      prevent_subscription_for_invoice_written_off: true
    });
    const listed = await DataSource.all(other.config, { with_auto_churn_subscription_setting: true });
    assert.deepEqual(listed.data_sources[0].auto_churn_subscription_setting, { enabled: true, interval: 30 });
    assert.equal(listed.data_sources[0].processing_status, undefined);
  });
});

describe('activities export', () => {
  test('create, poll until succeeded, download the CSV: the rows of /v1/activities', async () => {
    const c = await billedCustomer('exp-1', 2);
    const start = iso(monthStart(-1));
    // Recomputations run after an import completes: export once this customer's expansion
    // is listed and the account's listing has stopped changing, so that the export and the
    // listing it is compared with read the same activities.
    await settled(c.uuid, (m) => m.activities.some((a) => a.type === 'expansion'));
    let seen = -1;
    await until('activities', () => Metrics.Activity.all(acc.config, { 'start-date': start, type: 'expansion' }), (l) => {
      const same = l.entries.length === seen;
      seen = l.entries.length;
      return same;
    });
    const created = await Metrics.ActivitiesExport.create(acc.config, { 'start-date': start, type: 'expansion' });
    assert.equal(created.status, 'pending');
    assert.equal(created.file_url, null);
    assert.equal(created.params.params.activity_type, 'expansion');
    assert.match(created.created_at, SECONDS_OFFSET);
    const done = await until('export', () => Metrics.ActivitiesExport.retrieve(acc.config, created.id), (e) => e.status === 'succeeded');
    assert.match(done.expires_at, SECONDS_OFFSET);
    const res = await fetch(done.file_url);
    assert.equal(res.status, 200);
    const rows = (await res.text()).trim().split('\n').map((l) => l.split(','));
    const listed = await Metrics.Activity.all(acc.config, { 'start-date': start, type: 'expansion' });
    assert.ok(listed.entries.length > 0);
    assert.equal(rows.length, listed.entries.length + 1);
    assert.deepEqual(rows[0], Object.keys(listed.entries[0]));
    listed.entries.forEach((e, i) => {
      assert.deepEqual(rows[i + 1], rows[0].map((k) => String(e[k])));
    });
    await rejectsWith(Metrics.ActivitiesExport.retrieve(acc.config, '00000000-0000-4000-8000-000000000000'), 404,
      { code: 404, message: 'Activities export "00000000-0000-4000-8000-000000000000" does not exist', param: 'id' });
  });
});
