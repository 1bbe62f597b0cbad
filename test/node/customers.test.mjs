// Customers, contacts, custom attributes and tags through the official client: every
// Customer, Contact, CustomAttribute and Tag method of chartmogul-node 3.12.3 in this
// area, with shapes, status codes and error bodies.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import {
  ChartMogul, MILLIS_Z, admin, client, createAccount, familyA, idOf, rejection, rejectsWith, stack, unique
} from './lib/index.mjs';

const { Contact, CustomAttribute, Customer, DataSource, Tag } = ChartMogul;

const CUSTOMER_KEYS = ['id', 'uuid', 'external_id', 'name', 'email', 'status', 'customer-since', 'attributes',
  'data_source_uuid', 'data_source_uuids', 'external_ids', 'company', 'country', 'state', 'city', 'zip',
  'lead_created_at', 'free_trial_started_at', 'address', 'mrr', 'arr', 'billing-system-url', 'chartmogul-url',
  'service-url', 'billing-system-type', 'currency', 'currency-sign', 'owner', 'website_url', 'last_seen'];
const CONTACT_KEYS = ['uuid', 'customer_uuid', 'customer_external_id', 'data_source_uuid', 'external_id', 'position',
  'first_name', 'last_name', 'title', 'email', 'phone', 'linked_in', 'twitter', 'notes', 'custom', 'last_seen'];

// mail makes a unique e-mail address (unique() contains a space).
const mail = (prefix) => unique(prefix).replace(' ', '-') + '@example.com';

const notFound = (uuid) => familyA(404, `Customer "${uuid.slice(4)}" does not exist`, 'customer_id');

let ds;
let other;
let customer;

before(async () => {
  ds = await DataSource.create(client(), { name: unique('Customers DS') });
  other = await createAccount('Customers Other');
  customer = await Customer.create(client(), {
    data_source_uuid: ds.uuid, external_id: unique('cus'), name: 'Richard Hendricks', email: mail('rh'),
    company: 'Pied Piper', country: 'US', state: 'US-CA', city: 'San Francisco', zip: '12345',
    lead_created_at: '2015-11-01T00:00:00', free_trial_started_at: '2015-11-07 01:20:00 UTC',
    attributes: { tags: ['managed'], custom: [{ type: 'String', key: 'channel', value: 'Facebook' }] }
  });
});

describe('customers', () => {
  test('create answers the full customer object in ChartMogul key order', async () => {
    assert.deepEqual(Object.keys(customer), CUSTOMER_KEYS);
    assert.match(customer.uuid, idOf('cus'));
    assert.equal(customer.status, 'New Lead');
    assert.equal(customer.state, 'CA');
    assert.deepEqual(customer.address, { country: 'United States', state: 'California', city: 'San Francisco', address_zip: '12345' });
    assert.match(customer.lead_created_at, MILLIS_Z);
    assert.equal(customer['billing-system-type'], 'Custom');
    assert.equal(customer.currency, stack().currency || customer.currency);
    assert.ok(customer['chartmogul-url'].endsWith(`/#/customers/${customer.id}-Pied_Piper`));
    assert.deepEqual(customer.attributes, { custom: { channel: 'Facebook' }, stripe: {}, tags: ['managed'] });
  });

  test('retrieve, and 404 for another account', async () => {
    assert.deepEqual(await Customer.retrieve(client(), customer.uuid), customer);
    await rejectsWith(Customer.retrieve(other.config, customer.uuid), 404, notFound(customer.uuid));
  });

  test('external id clash is a 422', async () => {
    await rejectsWith(Customer.create(client(), { data_source_uuid: ds.uuid, external_id: customer.external_id, name: 'X' }),
      422, familyA(422, 'The external ID for this customer already exists in our system.', 'external_id'));
  });

  test('modify, patch and update apply the rules', async () => {
    const changed = await Customer.modify(client(), customer.uuid, {
      name: 'Renamed', website_url: 'example.com', status: 'Working_Lead', owner: 'demo@example.com',
      primary_contact: { first_name: 'Pat', email: mail('pat') }
    });
    assert.equal(changed.name, 'Renamed');
    assert.equal(changed.website_url, 'https://example.com');
    assert.equal(changed.status, 'Working Lead');
    assert.equal(changed.owner, 'demo@example.com');
    const patched = await Customer.patch(client(), customer.uuid, { city: 'Palo Alto' });
    assert.equal(patched.city, 'Palo Alto');
    const updated = await Customer.update(client(), customer.uuid, { zip: '94301' });
    assert.equal(updated.zip, '94301');
    for (const [body, param] of [
      [{ state: 'CA' }, 'state'], [{ country: 'XX' }, 'country'], [{ status: 'Active' }, 'status'],
      [{ owner: 'nobody@example.com' }, 'owner'], [{ lead_created_at: '2999-01-01' }, 'lead_created_at'],
      [{ website_url: 'ftp://x.example' }, 'website_url'], [{ attributes: { custom: { undefined_key: 1 } } }, 'custom']
    ]) {
      const err = await rejection(Customer.modify(client(), customer.uuid, body), 422);
      assert.equal(err.param, param);
    }
    assert.deepEqual(await Customer.retrieve(client(), customer.uuid), updated);
  });

  test('all pages with cursor, filters and legacy fields on the first page only', async () => {
    const page = await Customer.all(client(), { per_page: 1, data_source_uuid: ds.uuid });
    assert.deepEqual(Object.keys(page), ['entries', 'current_page', 'total_pages', 'has_more', 'per_page', 'page', 'cursor']);
    const next = await Customer.all(client(), { per_page: 1, data_source_uuid: ds.uuid, cursor: page.cursor });
    assert.deepEqual(Object.keys(next), ['entries', 'cursor', 'has_more']);
    const byExt = await Customer.all(client(), { external_id: customer.external_id });
    assert.deepEqual(byExt.entries.map(c => c.uuid), [customer.uuid]);
    const byStatus = await Customer.all(client(), { status: 'Working Lead', data_source_uuid: ds.uuid });
    assert.ok(byStatus.entries.some(c => c.uuid === customer.uuid));
    const none = await Customer.all(other.config, { external_id: customer.external_id });
    assert.deepEqual(none.entries, []);
    const bad = await rejection(Customer.all(client(), { cursor: page.cursor + 'x' }), 400);
    assert.equal(bad.param, 'cursor');
  });

  test('search by e-mail, 404 when none', async () => {
    const found = await Customer.search(client(), { email: customer.email });
    assert.deepEqual(found.entries.map(c => c.uuid), [customer.uuid]);
    await rejectsWith(Customer.search(client(), { email: 'no@email.com' }), 404,
      familyA(404, 'Can\'t find any customers with email: "no@email.com"', 'email'));
  });

  test('attributes, tags and custom attributes', async () => {
    assert.deepEqual(Object.keys(await Customer.attributes(client(), customer.uuid)), ['tags', 'stripe', 'custom']);
    assert.deepEqual(await Tag.add(client(), customer.uuid, { tags: ['vip'] }), { tags: ['managed', 'vip'] });
    assert.deepEqual(await Tag.remove(client(), customer.uuid, { tags: ['managed'] }), { tags: ['vip'] });
    const byEmail = await Tag.add(client(), { email: customer.email, tags: ['mail'] });
    assert.deepEqual(byEmail.entries[0].attributes.tags, ['vip', 'mail']);
    const added = await CustomAttribute.add(client(), customer.uuid, { custom: [
      { type: 'Integer', key: 'seats', value: 5 }, { type: 'Boolean', key: 'paid', value: 't' },
      { type: 'Timestamp', key: 'since', value: '2016-01-31 00:00:00 UTC' }] });
    assert.deepEqual(added, { custom: { channel: 'Facebook', seats: 5, paid: true, since: '2016-01-31T00:00:00.000Z' } });
    await rejection(CustomAttribute.add(client(), customer.uuid, { custom: [{ type: 'String', key: 'seats', value: 'x' }] }), 422);
    await rejection(CustomAttribute.add(client(), customer.uuid, { custom: [{ type: 'String', key: 'long', value: 'x'.repeat(256) }] }), 422);
    const byMail = await CustomAttribute.add(client(), { email: customer.email, custom: [{ type: 'String', key: 'channel', value: 'Ads' }] });
    assert.equal(byMail.entries[0].attributes.custom.channel, 'Ads');
    assert.equal((await CustomAttribute.update(client(), customer.uuid, { custom: { seats: 7 } })).custom.seats, 7);
    await rejection(CustomAttribute.update(client(), customer.uuid, { custom: { nope: 7 } }), 422);
    await CustomAttribute.remove(client(), customer.uuid, { custom: ['seats'] });
    assert.equal((await CustomAttribute.retrieve(client(), customer.uuid)).custom.seats, undefined);
  });

  test('destroy answers 204 and the customer is gone', async () => {
    const doomed = await Customer.create(client(), { data_source_uuid: ds.uuid, external_id: unique('doomed'), name: 'Doomed' });
    await Customer.destroy(client(), doomed.uuid);
    await rejectsWith(Customer.retrieve(client(), doomed.uuid), 404, notFound(doomed.uuid));
  });
});

describe('contacts', () => {
  let contact;

  before(async () => {
    await admin('define-attribute', '-account', stack().account_id, '-object', 'contact', '-key', 'Toggle', '-type', 'Boolean');
    contact = await Contact.create(client(), { customer_uuid: customer.uuid, data_source_uuid: ds.uuid, email: mail('c') });
  });

  test('create, retrieve, list', async () => {
    assert.deepEqual(Object.keys(contact), CONTACT_KEYS);
    assert.match(contact.uuid, idOf('con'));
    assert.deepEqual(await Contact.retrieve(client(), contact.uuid), contact);
    const viaCustomer = await Customer.createContact(client(), customer.uuid, { data_source_uuid: ds.uuid, first_name: 'Via' });
    const listed = await Customer.contacts(client(), customer.uuid, { per_page: 10 });
    assert.deepEqual(Object.keys(listed), ['entries', 'cursor', 'has_more']);
    assert.ok(listed.entries.some(c => c.uuid === viaCustomer.uuid));
    const filtered = await Contact.all(client(), { customer_external_id: customer.external_id, per_page: 50 });
    assert.ok(filtered.entries.some(c => c.uuid === contact.uuid));
    await rejectsWith(Contact.retrieve(other.config, contact.uuid), 404,
      familyA(404, `Contact "${contact.uuid.slice(4)}" does not exist`, 'contact_uuid'));
  });

  test('modify answers custom as an object, as recorded; rules are 422', async () => {
    const changed = await Contact.modify(client(), contact.uuid, { first_name: 'Foo', position: 9,
      last_seen: '2024-03-01T10:00:00Z', custom: [{ key: 'Toggle', value: false }] });
    assert.deepEqual(changed.custom, { Toggle: false });
    assert.equal(changed.position, 9);
    assert.equal((await Customer.retrieve(client(), customer.uuid)).last_seen, '2024-03-01T10:00:00.000Z');
    const dup = await Contact.create(client(), { customer_uuid: customer.uuid, data_source_uuid: ds.uuid, email: mail('d') });
    await rejection(Contact.modify(client(), contact.uuid, { email: dup.email }), 422);
    await rejection(Contact.modify(client(), contact.uuid, { custom: [{ key: 'Undefined', value: 1 }] }), 422);
    const merged = await Contact.merge(client(), dup.uuid, contact.uuid);
    assert.equal(merged.uuid, dup.uuid);
    assert.equal(merged.first_name, 'Foo');
    await rejection(Contact.retrieve(client(), contact.uuid), 404);
    assert.deepEqual(await Contact.destroy(client(), dup.uuid), {});
  });
});
