// Where the local stack is and how to reach it: the one place a test gets its base URL,
// its API key and a configured chartmogul-node client.
//
// run.sh exports SUBSIGHT_BASE_URL, SUBSIGHT_API_KEY and SUBSIGHT_STACK_FILE. Without
// them (a developer running `node --test` beside `make run`), everything is read from
// .local/stack.json at the repository root.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

// The official client, unmodified: tests only ever change its base URL.
export const ChartMogul = require('chartmogul-node');

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export const stackFile = process.env.SUBSIGHT_STACK_FILE || join(repoRoot, '.local', 'stack.json');

let cached;

// stack returns the local stack's description: .local/stack.json (base_url, api_key,
// account_id, endpoint_url, table_name, ...) with the environment's overrides applied.
export function stack () {
  if (!cached) {
    let file = {};
    try {
      file = JSON.parse(readFileSync(stackFile, 'utf8'));
    } catch (err) {
      if (!process.env.SUBSIGHT_BASE_URL || !process.env.SUBSIGHT_API_KEY) {
        throw new Error(`cannot read ${stackFile} (start the stack with test/node/run.sh or make run): ${err.message}`);
      }
    }
    cached = {
      ...file,
      base_url: (process.env.SUBSIGHT_BASE_URL || file.base_url).replace(/\/+$/, ''),
      api_key: process.env.SUBSIGHT_API_KEY || file.api_key
    };
  }
  return cached;
}

export const baseUrl = () => stack().base_url;

// client returns a chartmogul-node Config for apiKey (default: the demo account's key)
// pointed at the local stack. retries = 0 so that a 5xx, which should never happen,
// fails the test at once instead of being retried for about fifteen minutes.
export function client (apiKey = stack().api_key) {
  const config = new ChartMogul.Config(apiKey, baseUrl());
  config.retries = 0;
  return config;
}

// basicAuth is the Authorization header value the client sends: Basic base64(key + ":").
export function basicAuth (user, password = '') {
  return 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64');
}

// raw sends a request without the client (for what the client cannot express: no
// Authorization, a password, unknown routes). headers.authorization defaults to the
// demo key; pass null to send none. The body is parsed when it is JSON.
export async function raw (method, path, { headers = {}, body, apiKey = stack().api_key } = {}) {
  const h = { ...headers };
  if (!('authorization' in h)) h.authorization = basicAuth(apiKey);
  if (h.authorization === null) delete h.authorization;
  if (body !== undefined) h['content-type'] ??= 'application/json';
  const res = await fetch(baseUrl() + path, {
    method,
    headers: h,
    body: body === undefined ? undefined : (typeof body === 'string' ? body : JSON.stringify(body))
  });
  const text = await res.text();
  let json;
  if ((res.headers.get('content-type') || '').includes('json') && text !== '') json = JSON.parse(text);
  return { status: res.status, headers: res.headers, text, body: json };
}

// unique returns a name no other test run or file uses, for filters that must only
// see this test's objects (test files run in parallel against one stack).
export function unique (prefix) {
  return `${prefix} ${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}
