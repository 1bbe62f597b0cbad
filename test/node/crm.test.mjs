// Opportunities, tasks, plan groups and the customer unmerge through the official client:
// every Opportunity, Task and PlanGroup method of chartmogul-node 3.12.3, the
// customer-scoped ones and Customer.unmerge, with shapes, status codes and error bodies.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import {
  ChartMogul, MILLIS_Z, admin, assertRecent, createAccount, familyA, familyB, idOf, raw, rejectsWith, rejection,
  resolvesNoContent, unique
} from './lib/index.mjs';
import { until } from './lib/metrics.mjs';

const { Customer, DataSource, Opportunity, Plan, PlanGroup, Task } = ChartMogul;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const OPPORTUNITY_KEYS = ['uuid', 'customer_uuid', 'owner', 'pipeline', 'pipeline_stage', 'estimated_close_date', 'currency',
  'amount_in_cents', 'type', 'forecast_category', 'win_likelihood', 'custom', 'created_at', 'updated_at'];
const TASK_KEYS = ['task_uuid', 'customer_uuid', 'task_details', 'assignee', 'due_date', 'completed_at', 'created_at', 'updated_at'];
// createAccount's accounts have no team member; the admin command adds one.
const OWNER = 'crm-owner@example.com';

let acc; // { accountId, apiKey, config }
let other;
let ds;
let customer;

before(async () => {
  acc = await createAccount(unique('CRM'));
  other = await createAccount(unique('CRM other'));
  for (const a of [acc, other]) await admin('add-member', '-account', a.accountId, '-email', OWNER, '-name', 'Crm Owner');
  ds = await DataSource.create(acc.config, { name: unique('CRM DS') });
  customer = await Customer.create(acc.config, { data_source_uuid: ds.uuid, external_id: unique('crm'), name: 'CRM Customer' });
});

const opportunity = (extra = {}) => ({
  owner: OWNER, pipeline: 'New Business', pipeline_stage: 'Discovery', estimated_close_date: '2024-03-30',
  currency: 'USD', amount_in_cents: 100000, type: 'one-time', forecast_category: 'best_case', win_likelihood: 30,
  custom: [{ key: 'from_campaign', value: true }], ...extra
});

describe('opportunities', () => {
  test('create, retrieve, modify, patch, all and destroy, as recorded', async () => {
    const o = await Opportunity.create(acc.config, { customer_uuid: customer.uuid, ...opportunity() });
    assert.deepEqual(Object.keys(o), OPPORTUNITY_KEYS);
    assert.match(o.uuid, UUID);
    assert.equal(o.customer_uuid, customer.uuid);
    assert.equal(o.estimated_close_date, '2024-03-30');
    assert.deepEqual(o.custom, { from_campaign: true });
    assert.match(o.created_at, MILLIS_Z);
    assertRecent(o.created_at);

    assert.deepEqual(await Opportunity.retrieve(acc.config, o.uuid), o);
    const modified = await Opportunity.modify(acc.config, o.uuid, { estimated_close_date: '2024-04-30' });
    assert.equal(modified.estimated_close_date, '2024-04-30');
    assert.equal(modified.pipeline, 'New Business');
    const patched = await Opportunity.patch(acc.config, o.uuid, { amount_in_cents: 20000, custom: [{ key: 'seats', value: 4 }] });
    assert.equal(patched.amount_in_cents, 20000);
    assert.deepEqual(patched.custom, { from_campaign: true, seats: 4 });
    assert.ok(patched.updated_at > o.updated_at);

    const listed = await Opportunity.all(acc.config, { customer_uuid: customer.uuid, per_page: 200 });
    assert.deepEqual(Object.keys(listed), ['entries', 'cursor', 'has_more']);
    assert.deepEqual(listed.entries.map((e) => e.uuid), [o.uuid]);
    assert.equal(listed.has_more, false);

    assert.deepEqual(await Opportunity.destroy(acc.config, o.uuid), {});
    await rejectsWith(Opportunity.retrieve(acc.config, o.uuid), 404, familyA(404, `Opportunity "${o.uuid}" does not exist`, 'opportunity_uuid'));
  });

  test('Customer.createOpportunity and Customer.opportunities add customer_uuid', async () => {
    const c = await Customer.create(acc.config, { data_source_uuid: ds.uuid, external_id: unique('opp'), name: 'Opp' });
    const first = await Customer.createOpportunity(acc.config, c.uuid, opportunity({ pipeline_stage: 'Evaluation' }));
    const second = await Customer.createOpportunity(acc.config, c.uuid, opportunity({ estimated_close_date: '2024-06-01' }));
    assert.equal(first.customer_uuid, c.uuid);
    const listed = await Customer.opportunities(acc.config, c.uuid, { per_page: 1 });
    assert.deepEqual(listed.entries.map((e) => e.uuid), [second.uuid]); // newest first
    assert.equal(listed.has_more, true);
    const next = await Customer.opportunities(acc.config, c.uuid, { per_page: 1, cursor: listed.cursor });
    assert.deepEqual(next.entries.map((e) => e.uuid), [first.uuid]);
    const staged = await Opportunity.all(acc.config, { customer_uuid: c.uuid, pipeline_stage: 'Evaluation' });
    assert.deepEqual(staged.entries.map((e) => e.uuid), [first.uuid]);
    const closing = await Opportunity.all(acc.config, { customer_uuid: c.uuid, estimated_close_date_on_or_after: '2024-05-01' });
    assert.deepEqual(closing.entries.map((e) => e.uuid), [second.uuid]);
  });

  test('the owner is a team member; bad fields are 4xx; another account sees nothing', async () => {
    await rejectsWith(Opportunity.create(acc.config, { customer_uuid: customer.uuid, ...opportunity({ owner: 'nobody@example.com' }) }),
      422, familyA(422, '"nobody@example.com" is not a team member of this account', 'owner'));
    await rejectsWith(Opportunity.create(acc.config, { customer_uuid: customer.uuid, ...opportunity({ pipeline: undefined }) }),
      400, familyA(400, 'Parameter "pipeline" is missing', 'pipeline'));
    await rejection(Opportunity.create(acc.config, { customer_uuid: customer.uuid, ...opportunity({ win_likelihood: 101 }) }), 422);
    const o = await Opportunity.create(acc.config, { customer_uuid: customer.uuid, ...opportunity() });
    await rejection(Opportunity.retrieve(other.config, o.uuid), 404);
    await rejection(Opportunity.create(other.config, { customer_uuid: customer.uuid, ...opportunity() }), 404);
    assert.deepEqual((await Opportunity.all(other.config, {})).entries, []);
  });
});

describe('tasks', () => {
  test('create, retrieve, modify, patch, all and destroy, as recorded', async () => {
    const t = await Task.create(acc.config, {
      customer_uuid: customer.uuid, task_details: 'This is some task details text.', assignee: OWNER,
      due_date: '2025-04-30T00:00:00Z'
    });
    assert.deepEqual(Object.keys(t), TASK_KEYS);
    assert.match(t.task_uuid, UUID);
    assert.equal(t.due_date, '2025-04-30T00:00:00.000Z');
    assert.equal(t.completed_at, null);
    assert.deepEqual(await Task.retrieve(acc.config, t.task_uuid), t);

    const done = await Task.modify(acc.config, t.task_uuid, { completed_at: '2025-04-20T00:00:00Z' });
    assert.equal(done.completed_at, '2025-04-20T00:00:00.000Z');
    const patched = await Task.patch(acc.config, t.task_uuid, { task_details: 'This is updated task details text.' });
    assert.equal(patched.task_details, 'This is updated task details text.');
    assert.equal(patched.completed_at, '2025-04-20T00:00:00.000Z');

    const completed = await Task.all(acc.config, { customer_uuid: customer.uuid, completed: true });
    assert.ok(completed.entries.some((e) => e.task_uuid === t.task_uuid));
    const open = await Task.all(acc.config, { customer_uuid: customer.uuid, completed: false });
    assert.ok(!open.entries.some((e) => e.task_uuid === t.task_uuid));
    assert.deepEqual(Object.keys(open), ['entries', 'cursor', 'has_more']);

    assert.deepEqual(await Task.destroy(acc.config, t.task_uuid), {});
    await rejectsWith(Task.retrieve(acc.config, t.task_uuid), 404, familyA(404, `Task "${t.task_uuid}" does not exist`, 'task_uuid'));
  });

  test('Customer.createTask and Customer.tasks; the assignee is a team member', async () => {
    const c = await Customer.create(acc.config, { data_source_uuid: ds.uuid, external_id: unique('task'), name: 'Task' });
    const t = await Customer.createTask(acc.config, c.uuid, { task_details: 'Call', assignee: OWNER.toUpperCase(), due_date: '2025-05-01' });
    assert.equal(t.customer_uuid, c.uuid);
    assert.equal(t.assignee, OWNER);
    const listed = await Customer.tasks(acc.config, c.uuid, { per_page: 10 });
    assert.deepEqual(listed.entries.map((e) => e.task_uuid), [t.task_uuid]);
    const byAssignee = await Task.all(acc.config, { assignee: OWNER, due_date_on_or_before: '2025-05-01', customer_uuid: c.uuid });
    assert.deepEqual(byAssignee.entries.map((e) => e.task_uuid), [t.task_uuid]);
    await rejectsWith(Customer.createTask(acc.config, c.uuid, { task_details: 'x', assignee: 'nobody@example.com', due_date: '2025-05-01' }),
      422, familyA(422, '"nobody@example.com" is not a team member of this account', 'assignee'));
    await rejection(Task.retrieve(other.config, t.task_uuid), 404);
  });
});

describe('plan groups', () => {
  test('create (200), retrieve, modify, all, the group\'s plans, destroy (204)', async () => {
    const plans = [];
    for (const n of [1, 2]) {
      plans.push(await Plan.create(acc.config, { data_source_uuid: ds.uuid, name: `Grouped ${n}`, interval_count: n, interval_unit: 'month' }));
    }
    const g = await PlanGroup.create(acc.config, { name: 'New Plan Group', plans: [plans[0].uuid] });
    assert.deepEqual(Object.keys(g), ['name', 'uuid', 'plans_count']);
    assert.match(g.uuid, idOf('plg'));
    assert.equal(g.plans_count, 1);
    assert.deepEqual(await PlanGroup.retrieve(acc.config, g.uuid), g);

    const renamed = await PlanGroup.modify(acc.config, g.uuid, { name: 'Another name' });
    assert.deepEqual(renamed, { ...g, name: 'Another name' });
    const regrouped = await PlanGroup.modify(acc.config, g.uuid, { name: 'Another name', plans: plans.map((p) => p.uuid) });
    assert.equal(regrouped.plans_count, 2);

    const groups = await PlanGroup.all(acc.config, { per_page: 200 });
    assert.deepEqual(Object.keys(groups), ['plan_groups', 'current_page', 'total_pages', 'cursor', 'has_more']);
    assert.ok(groups.plan_groups.some((x) => x.uuid === g.uuid));

    const inGroup = await PlanGroup.all(acc.config, g.uuid, { per_page: 1 });
    assert.deepEqual(Object.keys(inGroup), ['plans', 'current_page', 'total_pages', 'cursor', 'has_more']);
    assert.deepEqual(Object.keys(inGroup.plans[0]), ['name', 'uuid', 'data_source_uuid', 'interval_count', 'interval_unit', 'external_id']);
    assert.equal(inGroup.plans[0].uuid, plans[0].uuid);
    assert.equal(inGroup.total_pages, 2);
    const rest = await PlanGroup.all(acc.config, g.uuid, { per_page: 1, cursor: inGroup.cursor });
    assert.deepEqual(rest.plans.map((p) => p.uuid), [plans[1].uuid]);
    assert.equal(rest.has_more, false);

    await resolvesNoContent(PlanGroup.destroy(acc.config, g.uuid));
    await rejectsWith(PlanGroup.retrieve(acc.config, g.uuid), 404, familyB('Plan group not found', 'plan_group_uuid'));
  });

  test('an empty create is the recorded 422; another account\'s plans and groups are out of reach', async () => {
    await rejectsWith(PlanGroup.create(acc.config, {}), 422, {
      name: ["Name can't be blank"],
      plan_ids: ["Plan ids can't be blank"],
      error_details: [
        { param: 'name', code: 'blank', message: "Name can't be blank" },
        { param: 'plan_ids', code: 'blank', message: "Plan ids can't be blank" }
      ]
    });
    const plan = await Plan.create(acc.config, { data_source_uuid: ds.uuid, name: 'Mine', interval_count: 1, interval_unit: 'year' });
    const g = await PlanGroup.create(acc.config, { name: 'Mine', plans: [plan.uuid] });
    await rejection(PlanGroup.create(other.config, { name: 'Theirs', plans: [plan.uuid] }), 422);
    await rejection(PlanGroup.retrieve(other.config, g.uuid), 404);
    await rejection(PlanGroup.all(other.config, g.uuid, {}), 404);
  });
});

describe('customer unmerge', () => {
  test('Customer.unmerge answers 202 {}; the data source customer becomes a customer of its own', async () => {
    const a = await Customer.create(acc.config, { data_source_uuid: ds.uuid, external_id: unique('una'), name: 'Una' });
    const b = await Customer.create(acc.config, { data_source_uuid: ds.uuid, external_id: unique('unb'), name: 'Unb' });
    const t = await Customer.createTask(acc.config, b.uuid, { task_details: 'Theirs', assignee: OWNER, due_date: '2025-01-01' });
    assert.deepEqual(await Customer.merge(acc.config, { from: { customer_uuid: b.uuid }, into: { customer_uuid: a.uuid } }), {});
    await until('merged', () => Customer.retrieve(acc.config, a.uuid), (c) => c.external_ids.length === 2);

    await rejection(Customer.unmerge(acc.config, { customer_uuid: a.uuid, data_source_uuid: ds.uuid, external_id: 'nope', move_to_new_customer: [] }), 422);
    const answer = await Customer.unmerge(acc.config, {
      customer_uuid: a.uuid, data_source_uuid: ds.uuid, external_id: b.external_id, move_to_new_customer: ['tasks']
    });
    assert.deepEqual(answer, {});
    const left = await until('unmerged', () => Customer.retrieve(acc.config, a.uuid), (c) => c.external_ids.length === 1);
    assert.deepEqual(left.external_ids, [a.external_id]);
    const found = await Customer.all(acc.config, { data_source_uuid: ds.uuid, external_id: b.external_id });
    assert.equal(found.entries.length, 1);
    const split = found.entries[0];
    assert.notEqual(split.uuid, a.uuid);
    assert.match(split.uuid, idOf('cus'));
    assert.equal(split.name, 'Una'); // the profile is the merged customer's
    assert.equal((await Task.retrieve(acc.config, t.task_uuid)).customer_uuid, split.uuid);
  });
});

describe('paging parameters', () => {
  test('an unknown paging parameter is a 400 in the endpoint\'s family; page=N is served where it was', async () => {
    let res = await raw('GET', '/v1/opportunities?offset=20', { apiKey: acc.apiKey });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body, familyA(400, 'Parameter "offset" is not supported by this listing: page with cursor and per_page', 'offset'));
    res = await raw('GET', '/v1/plan_groups?limit=5', { apiKey: acc.apiKey });
    assert.equal(res.status, 400);
    assert.equal(res.body.error_details[0].param, 'limit');
    res = await raw('GET', '/v1/plan_groups?page=1&per_page=1', { apiKey: acc.apiKey });
    assert.equal(res.status, 200);
    assert.equal(res.body.current_page, 1);
  });
});
