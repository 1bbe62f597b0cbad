// Foundation operations through the official client: ping, account, data sources,
// authentication and account isolation.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import {
  ChartMogul, MILLIS_Z, UNAUTHORIZED, admin, assertRecent, basicAuth, client, createAccount,
  createKey, familyA, familyB, idOf, raw, rejectsWith, resolvesNoContent, revokeKey, stack, unique
} from './lib/index.mjs';

const { Account, DataSource, Ping } = ChartMogul;

const SETTINGS = [
  'churn_recognition', 'churn_when_zero_mrr', 'auto_churn_subscription', 'refund_handling',
  'proximate_movement_reclassification'
];

const dataSourceNotFound = familyB('Data source not found', 'data_source_uuid');

describe('ping', () => {
  test('Ping.ping resolves with {data: "pong!"}', async () => {
    assert.deepEqual(await Ping.ping(client()), { data: 'pong!' });
  });
});

describe('account', () => {
  test('Account.retrieve without include: identity only, no settings', async () => {
    const acc = await Account.retrieve(client());
    assert.deepEqual(Object.keys(acc), ['id', 'name', 'currency', 'time_zone', 'week_start_on']);
    assert.equal(acc.id, stack().account_id);
    assert.match(acc.id, idOf('acc'));
    assert.equal(typeof acc.name, 'string');
    assert.ok(acc.name.length > 0);
    assert.match(acc.currency, /^[A-Z]{3}$/);
    assert.equal(typeof acc.time_zone, 'string');
    assert.ok(['monday', 'sunday'].includes(acc.week_start_on));
  });

  test('Account.retrieve with every include: ChartMogul defaults', async () => {
    const acc = await Account.retrieve(client(), { include: SETTINGS.join(',') });
    assert.deepEqual(acc, {
      id: stack().account_id,
      name: acc.name,
      currency: acc.currency,
      time_zone: acc.time_zone,
      week_start_on: acc.week_start_on,
      churn_recognition: 'churn_at_time_of_cancelation',
      churn_when_zero_mrr: false,
      auto_churn_subscription: false,
      refund_handling: 'refund_ignore',
      proximate_movement_reclassification: 'reclassification_off'
    });
  });

  test('Account.retrieve with one include adds only that field', async () => {
    const acc = await Account.retrieve(client(), { include: 'refund_handling' });
    assert.deepEqual(Object.keys(acc), ['id', 'name', 'currency', 'time_zone', 'week_start_on', 'refund_handling']);
  });

  test('unknown include is a 400 that names it', async () => {
    // The client warns on the console about the unknown name and sends it anyway.
    const warn = console.warn;
    console.warn = () => {};
    try {
      await rejectsWith(Account.retrieve(client(), { include: 'churn_recognition,bogus_field' }), 400,
        familyA(400, 'Invalid include parameter: bogus_field', 'include'));
    } finally {
      console.warn = warn;
    }
  });

  test('settings changed with the admin command show in include', async () => {
    // A fresh account: the demo account's settings stay at their defaults for other files.
    const other = await createAccount('Settings Co', '-currency', 'EUR', '-time-zone', 'Europe/Berlin', '-week-start', 'sunday');
    await admin('set-setting', '-account', other.accountId, '-setting', 'churn_when_zero_mrr', '-value', 'true');
    const acc = await Account.retrieve(other.config, { include: 'churn_when_zero_mrr' });
    assert.deepEqual(acc, {
      id: other.accountId,
      name: 'Settings Co',
      currency: 'EUR',
      time_zone: 'Europe/Berlin',
      week_start_on: 'sunday',
      churn_when_zero_mrr: true
    });
  });
});

describe('data sources', () => {
  test('create answers 201 with the data source', async () => {
    const name = unique('Foundation DS');
    const ds = await DataSource.create(client(), { name });
    assert.deepEqual(Object.keys(ds), ['uuid', 'name', 'system', 'created_at', 'status']);
    assert.match(ds.uuid, idOf('ds'));
    assert.equal(ds.name, name);
    assert.equal(ds.system, 'Import API');
    assert.match(ds.created_at, MILLIS_Z);
    assertRecent(ds.created_at);
    assert.equal(ds.status, 'idle');
  });

  test('create answers 201 on the wire', async () => {
    const res = await raw('POST', '/v1/data_sources', { body: { name: unique('Raw DS') } });
    assert.equal(res.status, 201);
    assert.match(res.headers.get('content-type'), /^application\/json/);
  });

  test('create without name is a 400 in family A', async () => {
    await rejectsWith(DataSource.create(client(), {}), 400,
      familyA(400, 'Parameter "name" is missing', 'name'));
  });

  test('create with name null is a 422 in family C', async () => {
    await rejectsWith(DataSource.create(client(), { name: null }), 422,
      { errors: { name: 'A name is required for each data source.' } });
  });

  test('all lists data sources, filtered by name and system', async () => {
    const name = unique('Listed DS');
    const ds = await DataSource.create(client(), { name });

    const all = await DataSource.all(client());
    assert.deepEqual(Object.keys(all), ['data_sources']);
    assert.ok(all.data_sources.some((d) => d.uuid === ds.uuid));

    assert.deepEqual(await DataSource.all(client(), { name }), { data_sources: [ds] });
    assert.deepEqual(await DataSource.all(client(), { name, system: 'Import API' }), { data_sources: [ds] });
    assert.deepEqual(await DataSource.all(client(), { name, system: 'Stripe' }), { data_sources: [] });
    assert.deepEqual(await DataSource.all(client(), { name: unique('Nobody') }), { data_sources: [] });
  });

  test('retrieve returns what create returned', async () => {
    const ds = await DataSource.create(client(), { name: unique('Retrieved DS') });
    assert.deepEqual(await DataSource.retrieve(client(), ds.uuid), ds);
  });

  test('retrieve of an unknown or malformed uuid is a 404 in family B', async () => {
    await rejectsWith(DataSource.retrieve(client(), 'ds_00000000-0000-4000-8000-000000000000'), 404, dataSourceNotFound);
    await rejectsWith(DataSource.retrieve(client(), 'not-a-uuid'), 404, dataSourceNotFound);
  });

  test('destroy is a 204 without body or content type; the source is gone afterwards', async () => {
    const ds = await DataSource.create(client(), { name: unique('Destroyed DS') });
    await resolvesNoContent(DataSource.destroy(client(), ds.uuid));
    await rejectsWith(DataSource.retrieve(client(), ds.uuid), 404, dataSourceNotFound);
    const listed = await DataSource.all(client(), { name: ds.name });
    assert.deepEqual(listed, { data_sources: [] });
    await rejectsWith(DataSource.destroy(client(), 'ds_00000000-0000-4000-8000-000000000000'), 404, dataSourceNotFound);
  });

  test('destroy on the wire: 204, empty body, no content type', async () => {
    const ds = await DataSource.create(client(), { name: unique('Raw destroyed DS') });
    const res = await raw('DELETE', `/v1/data_sources/${ds.uuid}`);
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    assert.equal(res.headers.get('content-type'), null);
  });
});

describe('authentication', () => {
  test('a wrong key is a 401', async () => {
    await rejectsWith(Ping.ping(client('wrong_key_0123456789abcdef')), 401, UNAUTHORIZED);
    await rejectsWith(Account.retrieve(client('wrong_key_0123456789abcdef')), 401, UNAUTHORIZED);
  });

  test('an empty key is a 401', async () => {
    await rejectsWith(DataSource.all(client('')), 401, UNAUTHORIZED);
  });

  test('a second key works until it is revoked', async () => {
    const key = await createKey(stack().account_id);
    const acc = await Account.retrieve(key.config);
    assert.equal(acc.id, stack().account_id);
    await revokeKey(stack().account_id, key.keyId);
    await rejectsWith(Account.retrieve(key.config), 401, UNAUTHORIZED);
    await rejectsWith(DataSource.create(key.config, { name: unique('Revoked') }), 401, UNAUTHORIZED);
    // The demo key is untouched.
    assert.equal((await Account.retrieve(client())).id, stack().account_id);
  });

  test('the password is ignored: the right key with any password works, a wrong key with one is a 401', async () => {
    for (const password of ['secret', stack().api_key]) {
      const res = await raw('GET', '/v1/account', { headers: { authorization: basicAuth(stack().api_key, password) } });
      assert.equal(res.status, 200, password);
      assert.equal(res.body.id, stack().account_id);
    }
    const wrong = 'wrong_key_0123456789abcdef';
    const res = await raw('GET', '/v1/account', { headers: { authorization: basicAuth(wrong, wrong) } });
    assert.equal(res.status, 401);
    assert.deepEqual(res.body, UNAUTHORIZED);
  });

  const malformed = {
    'no Authorization header': null,
    'Bearer scheme': () => `Bearer ${stack().api_key}`,
    'Basic with garbage': 'Basic !!!not-base64!!!',
    'Basic without a colon': () => 'Basic ' + Buffer.from(stack().api_key).toString('base64')
  };
  for (const [name, header] of Object.entries(malformed)) {
    test(`${name} is a 401`, async () => {
      const authorization = typeof header === 'function' ? header() : header;
      for (const path of ['/v1/ping', '/v1/account', '/v1/data_sources']) {
        const res = await raw('GET', path, { headers: { authorization } });
        assert.equal(res.status, 401, path);
        assert.match(res.headers.get('content-type'), /^application\/json/, path);
        assert.deepEqual(res.body, UNAUTHORIZED, path);
      }
    });
  }
});

describe('account isolation', () => {
  let other;
  let mine;
  before(async () => {
    other = await createAccount('Other');
    mine = await DataSource.create(client(), { name: unique('Isolated DS') });
  });

  test('the second account is its own account', async () => {
    const acc = await Account.retrieve(other.config);
    assert.equal(acc.id, other.accountId);
    assert.notEqual(acc.id, stack().account_id);
    assert.equal(acc.name, 'Other');
  });

  test("another account's data source is a 404 for every operation", async () => {
    await rejectsWith(DataSource.retrieve(other.config, mine.uuid), 404, dataSourceNotFound);
    await rejectsWith(DataSource.destroy(other.config, mine.uuid), 404, dataSourceNotFound);
    // Still there for its owner.
    assert.deepEqual(await DataSource.retrieve(client(), mine.uuid), mine);
  });

  test("another account's list does not show it", async () => {
    const theirs = await DataSource.all(other.config);
    assert.ok(!theirs.data_sources.some((d) => d.uuid === mine.uuid));
    assert.deepEqual(await DataSource.all(other.config, { name: mine.name }), { data_sources: [] });
    const created = await DataSource.create(other.config, { name: mine.name });
    assert.deepEqual(await DataSource.all(other.config, { name: mine.name }), { data_sources: [created] });
    assert.deepEqual(await DataSource.all(client(), { name: mine.name }), { data_sources: [mine] });
  });
});

describe('routing', () => {
  test('an unknown route is a 404 with a JSON body', async () => {
    for (const [method, path] of [['GET', '/v1/no_such_thing'], ['POST', '/v1/ping'], ['GET', '/nowhere']]) {
      const res = await raw(method, path);
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.match(res.headers.get('content-type') || '', /^application\/json/, `${method} ${path}`);
      assert.equal(typeof res.body, 'object', `${method} ${path}`);
    }
  });
});
