// Formats of ids and timestamps in ChartMogul responses (docs/api.md, "Identifiers",
// "Dates and times").
import assert from 'node:assert/strict';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

// idOf matches a prefixed public id: idOf('ds') for ds_<uuid>.
export const idOf = (prefix) => new RegExp(`^${prefix}_${UUID}$`);

// "2023-12-15T12:25:56.950Z": data sources, notes, Import-API timestamps.
export const MILLIS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
// "2022-05-18T09:48:34Z": subscription events, json imports.
export const SECONDS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
// "2016-01-01T12:00:00+00:00": customer-since, Metrics-API dates.
export const SECONDS_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/;
// "2015-01-31": metrics entries.
export const DATE = /^\d{4}-\d{2}-\d{2}$/;

// assertRecent asserts that a timestamp string is within `slackMs` of now (server
// clock = this machine's clock for the local stack).
export function assertRecent (value, slackMs = 120000) {
  const t = Date.parse(value);
  assert.ok(Number.isFinite(t), `not a timestamp: ${value}`);
  assert.ok(Math.abs(Date.now() - t) < slackMs, `${value} is not close to now`);
}
