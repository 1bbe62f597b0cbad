// Assertions on rejections. chartmogul-node 3.12.3 rejects every 4xx/5xx with
// superagent's error, not its own NotFoundError etc.: e.status is the HTTP status and
// e.response.body the parsed JSON body (docs/api.md, "The official Node client").
import assert from 'node:assert/strict';

// Family A (customers, contacts, notes, account, auth).
export const familyA = (code, message, param = null) => ({ code, message, param });

// Family B (data sources, plans, invoices): {"error", "error_details":[{param, code, message}]}.
export const familyB = (message, param, code = 'invalid') =>
  ({ error: message, error_details: [{ param, code, message }] });

// The one 401 body, whatever went wrong with the key.
export const UNAUTHORIZED = familyA(401, 'No valid API key provided');

// rejection awaits promise, asserts that it rejected with an HTTP error of the given
// status and returns the error's parsed body.
export async function rejection (promise, status) {
  let err;
  try {
    const value = await promise;
    assert.fail(`expected HTTP ${status}, the call resolved with ${JSON.stringify(value)}`);
  } catch (e) {
    err = e;
  }
  if (err instanceof assert.AssertionError) throw err;
  assert.equal(err.status, status,
    `HTTP status (message ${JSON.stringify(err.message)}, body ${err.response?.text})`);
  assert.ok(err.response, 'superagent error without a response');
  assert.match(err.response.headers['content-type'] || '', /^application\/json/, 'error content type');
  return err.response.body;
}

// rejectsWith asserts the status and the exact error body.
export async function rejectsWith (promise, status, body) {
  const got = await rejection(promise, status);
  assert.deepEqual(got, body);
  return got;
}

// resolvesNoContent asserts what a 204 resolves to. ChartMogul's 204s carry no body and
// no Content-Type (recorded: chartmogul-go integration_tests/fixtures/delete_invoice.yaml),
// and superagent then resolves {} (it resolves "" only when a 204 says application/json).
export async function resolvesNoContent (promise) {
  assert.deepEqual(await promise, {});
}
