// Plans and customer notes through the official client: every Plan and CustomerNote
// method of chartmogul-node 3.12.3, with shapes, status codes and error bodies.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import {
  ChartMogul, MILLIS_Z, assertRecent, client, createAccount, familyA, familyB, idOf, raw,
  rejectsWith, resolvesNoContent, unique
} from './lib/index.mjs';

const { Customer, CustomerNote, DataSource, Plan } = ChartMogul;

const PLAN_KEYS = ['external_id', 'name', 'interval_count', 'interval_unit', 'data_source_uuid', 'uuid'];
const NOTE_KEYS = ['uuid', 'customer_uuid', 'type', 'text', 'call_duration', 'author', 'created_at', 'updated_at'];
const planNotFound = familyB('Plan not found', 'plan_uuid');

let ds;
let other;

before(async () => {
  ds = await DataSource.create(client(), { name: unique('Plans DS') });
  other = await createAccount('Plans Other');
});

describe('plans', () => {
  test('create answers 201 with the plan, keys in ChartMogul order', async () => {
    const plan = await Plan.create(client(), {
      data_source_uuid: ds.uuid, name: 'Gold', interval_count: 3, interval_unit: 'month', external_id: unique('gold')
    });
    assert.deepEqual(Object.keys(plan), PLAN_KEYS);
    assert.match(plan.uuid, idOf('pl'));
    assert.equal(plan.interval_count, 3);
    assert.equal(plan.data_source_uuid, ds.uuid);
  });

  test('create without external_id uses the uuid without pl_', async () => {
    const plan = await Plan.create(client(), { data_source_uuid: ds.uuid, name: 'Auto', interval_count: 1, interval_unit: 'year' });
    assert.equal(plan.external_id, plan.uuid.slice(3));
  });

  test('the legacy POST /v1/import/plans answers 201', async () => {
    const res = await raw('POST', '/v1/import/plans', {
      body: { data_source_uuid: ds.uuid, name: 'Legacy', interval_count: 7, interval_unit: 'day' }
    });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body), PLAN_KEYS);
  });

  test('create with every field null is the recorded 422', async () => {
    await rejectsWith(Plan.create(client(), { data_source_uuid: null, name: null, interval_count: null, interval_unit: null }), 422, {
      errors: {
        name: 'A unique name is required for each plan.',
        interval_count: 'is not a number',
        interval_unit: "Only 'day', 'month' or 'year' are valid values for interval_unit.",
        data_source_uuid: 'A valid data source UUID is required for each plan.'
      }
    });
  });

  test('an external id clash is a 422 and stores nothing', async () => {
    const external_id = unique('clash');
    await Plan.create(client(), { data_source_uuid: ds.uuid, name: 'First', interval_count: 1, interval_unit: 'month', external_id });
    await rejectsWith(Plan.create(client(), { data_source_uuid: ds.uuid, name: 'Second', interval_count: 1, interval_unit: 'month', external_id }), 422,
      { errors: { external_id: 'The external ID for this plan already exists in our system.' } });
    const list = await Plan.all(client(), { data_source_uuid: ds.uuid, external_id });
    assert.deepEqual(list.plans.map((p) => p.name), ['First']);
  });

  test('retrieve, modify (202) and destroy (204)', async () => {
    const plan = await Plan.create(client(), { data_source_uuid: ds.uuid, name: 'Editable', interval_count: 1, interval_unit: 'month' });
    assert.deepEqual(await Plan.retrieve(client(), plan.uuid), plan);

    const res = await raw('PATCH', `/v1/plans/${plan.uuid}`, { body: { name: 'Edited' } });
    assert.equal(res.status, 202);
    const modified = await Plan.modify(client(), plan.uuid, { interval_count: 2, interval_unit: 'year' });
    assert.deepEqual(modified, { ...plan, name: 'Edited', interval_count: 2, interval_unit: 'year' });

    await rejectsWith(Plan.modify(client(), plan.uuid, { interval_unit: 'week' }), 422,
      familyB("Only 'day', 'month' or 'year' are valid values for interval_unit.", 'interval_unit'));
    assert.deepEqual(await Plan.retrieve(client(), plan.uuid), modified);

    await resolvesNoContent(Plan.destroy(client(), plan.uuid));
    await rejectsWith(Plan.retrieve(client(), plan.uuid), 404, planNotFound);
  });

  test('another account gets 404 and sees none of the plans', async () => {
    const plan = await Plan.create(client(), { data_source_uuid: ds.uuid, name: 'Private', interval_count: 1, interval_unit: 'month' });
    await rejectsWith(Plan.retrieve(other.config, plan.uuid), 404, planNotFound);
    await rejectsWith(Plan.modify(other.config, plan.uuid, { name: 'Stolen' }), 404, planNotFound);
    await rejectsWith(Plan.destroy(other.config, plan.uuid), 404, planNotFound);
    const theirs = await Plan.all(other.config, { data_source_uuid: ds.uuid });
    assert.deepEqual(theirs.plans, []);
  });

  test('all pages with cursors, legacy fields on the first page only', async () => {
    const pageDS = await DataSource.create(client(), { name: unique('Paged plans') });
    const made = [];
    for (let i = 0; i < 5; i++) {
      made.push((await Plan.create(client(), { data_source_uuid: pageDS.uuid, name: `P${i}`, interval_count: 1, interval_unit: 'month' })).uuid);
    }
    const first = await Plan.all(client(), { data_source_uuid: pageDS.uuid, per_page: 2 });
    assert.deepEqual(Object.keys(first), ['plans', 'current_page', 'total_pages', 'cursor', 'has_more']);
    assert.equal(first.total_pages, 3);
    const seen = first.plans.map((p) => p.uuid);
    let page = first;
    while (page.has_more) {
      page = await Plan.all(client(), { data_source_uuid: pageDS.uuid, per_page: 2, cursor: page.cursor });
      assert.deepEqual(Object.keys(page), ['plans', 'cursor', 'has_more']);
      seen.push(...page.plans.map((p) => p.uuid));
    }
    assert.deepEqual(seen, made);
    await rejectsWith(Plan.all(client(), { data_source_uuid: pageDS.uuid, cursor: first.cursor + 'x' }), 400,
      familyB('Invalid cursor', 'cursor'));
  });
});

describe('customer notes', () => {
  let customer;

  before(async () => {
    customer = await Customer.create(client(), {
      data_source_uuid: ds.uuid, external_id: unique('note-cus'), name: 'Noted Customer'
    });
  });

  test('create (201), retrieve, modify, destroy (200 {})', async () => {
    const note = await CustomerNote.create(client(), {
      customer_uuid: customer.uuid, type: 'call', text: 'Called', call_duration: 90, author_email: 'demo@example.com'
    });
    assert.deepEqual(Object.keys(note), NOTE_KEYS);
    assert.match(note.uuid, idOf('note'));
    assert.equal(note.author, 'Demo User (demo@example.com)');
    assert.equal(note.call_duration, 90);
    assert.match(note.created_at, MILLIS_Z);
    assertRecent(note.created_at);
    assert.deepEqual(await CustomerNote.retrieve(client(), note.uuid), note);

    const modified = await CustomerNote.modify(client(), note.uuid, { text: 'Called again' });
    assert.equal(modified.text, 'Called again');
    assert.equal(modified.created_at, note.created_at);
    assert.ok(modified.updated_at > note.updated_at);

    assert.deepEqual(await CustomerNote.destroy(client(), note.uuid), {});
    await rejectsWith(CustomerNote.retrieve(client(), note.uuid), 404,
      familyA(404, `Note "${note.uuid.slice(5)}" does not exist`, 'note_uuid'));
  });

  test('Customer.createNote and Customer.notes, newest first, with cursors', async () => {
    const made = [];
    for (let i = 0; i < 3; i++) {
      made.unshift((await Customer.createNote(client(), customer.uuid, {
        type: 'note', text: `n${i}`, created_at: `2024-01-0${i + 1}T00:00:00Z`
      })).uuid);
    }
    const first = await Customer.notes(client(), customer.uuid, { per_page: 2 });
    assert.deepEqual(Object.keys(first), ['entries', 'cursor', 'has_more']);
    assert.equal(first.has_more, true);
    const rest = await CustomerNote.all(client(), { customer_uuid: customer.uuid, per_page: 2, cursor: first.cursor });
    const seen = [...first.entries, ...rest.entries].map((n) => n.uuid).filter((u) => made.includes(u));
    assert.deepEqual(seen, made);
  });

  test('validation errors are family A 4xx', async () => {
    await rejectsWith(CustomerNote.create(client(), { customer_uuid: customer.uuid, type: 'note', author_email: 'nobody@example.com' }), 422,
      familyA(422, 'The author_email must be the e-mail of a team member of the account.', 'author_email'));
    await rejectsWith(CustomerNote.create(client(), { customer_uuid: customer.uuid, type: 'memo' }), 422,
      familyA(422, 'The type must be either "note" or "call".', 'type'));
    await rejectsWith(CustomerNote.create(client(), { customer_uuid: 'cus_00000000-0000-4000-8000-000000000000', type: 'note' }), 404,
      familyA(404, 'Customer "00000000-0000-4000-8000-000000000000" does not exist', 'customer_id'));
  });

  test('another account gets 404 and an empty list', async () => {
    const note = await CustomerNote.create(client(), { customer_uuid: customer.uuid, type: 'note', text: 'secret' });
    const notFound = familyA(404, `Note "${note.uuid.slice(5)}" does not exist`, 'note_uuid');
    await rejectsWith(CustomerNote.retrieve(other.config, note.uuid), 404, notFound);
    await rejectsWith(CustomerNote.modify(other.config, note.uuid, { text: 'x' }), 404, notFound);
    await rejectsWith(CustomerNote.destroy(other.config, note.uuid), 404, notFound);
    const theirs = await CustomerNote.all(other.config, { customer_uuid: customer.uuid });
    assert.deepEqual(theirs, { entries: [], cursor: null, has_more: false });
  });
});
