// Helpers of the per-customer metrics tests. The local stack computes at the
// real clock, so records are dated around today; recomputation is asynchronous (import
// worker -> jobs queue -> jobs worker), so reads poll until the figures settle.
import assert from 'node:assert/strict';

import { ChartMogul, unique } from './stack.mjs';

const { Customer, JsonImport } = ChartMogul;

export const DAY = 86400000;
export const iso = (ms) => new Date(ms).toISOString();
// "2024-01-01T00:00:00+00:00": customer-since and Metrics-API dates.
export const offset = (ms) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');
// First day of the month m months from now (UTC), at midnight.
export const monthStart = (m) => { const d = new Date(); return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + m, 1); };
// Midnight (UTC) d days from today.
export const dayStart = (d) => { const n = new Date(); return Date.UTC(n.getUTCFullYear(), n.getUTCMonth(), n.getUTCDate() + d); };

// until reads until ok(value) holds, and fails with the last value after timeoutMs.
export async function until (what, read, ok, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    last = await read();
    if (ok(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  assert.fail(`${what}: still ${JSON.stringify(last)}`);
}

// importRecords sends one json_imports batch, waits until it is completed and asserts that
// every record was imported (a refused record would make a lead scenario pass vacuously).
export async function importRecords (config, dsUUID, payload) {
  const created = await JsonImport.create(config, dsUUID, { external_id: unique('imp'), ...payload });
  const done = await until('import', () => JsonImport.retrieve(config, dsUUID, created.id), (i) => i.status === 'completed');
  for (const [key, detail] of Object.entries(done.status_details)) {
    assert.equal(detail.status, 'imported', `import of ${key}: ${JSON.stringify(detail)}`);
  }
  return done;
}

export async function customerByExternalId (config, dsUUID, externalId) {
  const list = await Customer.all(config, { data_source_uuid: dsUUID, external_id: externalId });
  assert.equal(list.entries.length, 1, `customer ${externalId}`);
  return list.entries[0];
}
