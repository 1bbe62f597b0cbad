// The dashboard in headless Chromium (Debian's package, driven by playwright-core) against
// the local stack, on an account seeded through the API with a known history: every number
// the page shows is read back from the page (text, aria-labels of the chart's bars, data
// attributes) and compared with what the API answers for the same query.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = resolve(here, '../..');
const base = (process.env.SUBSIGHT_BASE_URL ?? '').replace(/\/+$/, '');
const shots = join(here, 'screenshots');
const run = promisify(execFile);
const t0 = Date.now();

// ------------------------------------------------------------------ the seeded account

const M = (k) => { const d = new Date(); return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + k, 1)); };
const ymd = (d) => d.toISOString().slice(0, 10);
const PRICE = { basic: 1000, pro: 5000 };
// [external id, name, e-mail, country, [[plan, first month, month after the last, quantity], ...]];
// consecutive runs are one subscription changing plan or quantity.
const CUSTOMERS = [
  ['alpha', 'Alpha Analytics', 'alpha@example.test', 'DE', [['basic', -5, 1, 1]]],
  ['beta', 'Beta Bakery', 'beta@example.test', 'FR', [['basic', -4, -2, 1], ['pro', -2, 1, 1]]],
  ['gamma', 'Gamma Games', 'gamma@example.test', 'US', [['pro', -5, -3, 1]]],
  ['delta', 'Delta Dental', 'delta@example.test', 'DE', [['pro', -3, -1, 2], ['pro', -1, 1, 1]]],
  ['epsilon', 'Epsilon Energy', 'epsilon@example.test', 'US', [['basic', -1, 1, 1]]],
  ['zeta', 'Zeta Zoo', 'zeta@example.test', 'US', [['basic', -2, 1, 1]]],
  ['eta', 'Eta Estates', 'eta@example.test', 'FR', [['basic', -3, -2, 1]]]
];
// By hand: alpha 1000 + beta 5000 + delta 5000 + epsilon 1000 + zeta 1000 today.
const EXPECTED_MRR = 13000;
const EXPECTED_CUSTOMERS = 5;

function payload () {
  const p = { external_id: 'browser-test', plans: [
    { external_id: 'basic', name: 'Basic', interval_count: 1, interval_unit: 'month' },
    { external_id: 'pro', name: 'Pro', interval_count: 1, interval_unit: 'month' }
  ], customers: [], invoices: [], line_items: [], transactions: [] };
  for (const [id, name, email, country, runs] of CUSTOMERS) {
    p.customers.push({ external_id: id, name, email, country });
    runs.forEach(([plan, from, to, quantity], i) => {
      const sub = `${id}-sub-${i > 0 && runs[i - 1][2] === from ? i - 1 : i}`;
      // A run that ends before this month and is not continued is cancelled at its end.
      const cancelled = to <= 0 && runs[i + 1]?.[1] !== to;
      for (let m = from; m < to; m++) {
        const inv = `${id}-${ymd(M(m))}`;
        p.invoices.push({ external_id: inv, customer_external_id: id, date: M(m).toISOString(), currency: 'EUR' });
        p.line_items.push({ invoice_external_id: inv, type: 'subscription', subscription_external_id: sub, plan_external_id: plan,
          service_period_start: M(m).toISOString(), service_period_end: M(m + 1).toISOString(), amount_in_cents: PRICE[plan] * quantity, quantity,
          ...(cancelled && m === to - 1 ? { cancelled_at: M(to).toISOString() } : {}) });
        p.transactions.push({ invoice_external_id: inv, type: 'payment', result: 'successful', date: M(m).toISOString() });
      }
    });
  }
  return p;
}

// createAccount: `admin -local create-account` on the stack under test (the admin command
// finds the stack from .local/stack.json in its working directory).
async function createAccount () {
  const dir = mkdtempSync(join(tmpdir(), 'dashboard-admin-'));
  try {
    let bin = process.env.SUBSIGHT_ADMIN_BIN;
    if (!bin) {
      bin = join(dir, 'admin');
      await run('go', ['build', '-o', bin, './infra/admin'], { cwd: repoRoot });
    }
    mkdirSync(join(dir, '.local'));
    copyFileSync(process.env.SUBSIGHT_STACK_FILE ?? join(repoRoot, '.local', 'stack.json'), join(dir, '.local', 'stack.json'));
    const { stdout } = await run(bin, ['-local', 'create-account', '-name', 'Browser Test GmbH', '-currency', 'EUR'], { cwd: dir });
    const created = JSON.parse(stdout);
    // The page and the test call faster than the production 40 requests a second.
    await run(bin, ['-local', 'set-limit', '-account', created.account_id, '-name', 'requests_per_second', '-value', '100000'], { cwd: dir });
    return created.api_key;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function apiClient (key) {
  const auth = 'Basic ' + Buffer.from(key + ':').toString('base64');
  const call = async (method, path, body) => {
    const res = await fetch(base + path, { method, headers: { Authorization: auth, 'Content-Type': 'application/json' }, body: body && JSON.stringify(body) });
    const json = await res.json().catch(() => null);
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  return { get: (path, q) => call('GET', path + (q ? '?' + new URLSearchParams(q) : '')), post: (path, body) => call('POST', path, body) };
}

async function until (what, read, ok, ms = 60000) {
  const deadline = Date.now() + ms;
  let last;
  while (Date.now() < deadline) {
    last = await read();
    if (ok(last)) return last;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.fail(`${what}: still ${JSON.stringify(last)}`);
}

// ------------------------------------------------------------------ reading the page

// cents reads an amount as the page shows it ("€1,234.56", "-€5.00", "+€40.00").
const cents = (text) => Math.round(Number(text.replace(/[^0-9.-]/g, '')) * 100);
const number = (text) => Number(text.replace(/[^0-9.-]/g, ''));
const round2 = (x) => Math.round(x * 100) / 100;

async function tilesOnPage (page) {
  return page.$$eval('.tile', (els) => els.map((el) => ({
    metric: el.dataset.metric,
    dataValue: Number(el.dataset.value),
    value: el.querySelector('.value').textContent,
    pct: el.querySelector('.pct').textContent,
    range: el.querySelector('.range')?.textContent ?? null
  })));
}

async function barsOnPage (page, chart) {
  return page.$$eval(`#${chart} svg rect[aria-label]`, (els) => els.map((e) => e.getAttribute('aria-label')));
}

const KIND = { mrr: 'money', arr: 'money', arpa: 'money', asp: 'money', ltv: 'money', customers: 'count', 'customer-churn-rate': 'rate', 'mrr-churn-rate': 'rate' };
const shown = (kind, text) => (kind === 'money' ? cents(text) : kind === 'rate' ? number(text) : number(text));
const expected = (kind, v) => (kind === 'money' ? Math.round(v) : kind === 'rate' ? round2(v) : v);
const LABEL = { 'New business': 'mrr-new-business', Expansion: 'mrr-expansion', Contraction: 'mrr-contraction', Churn: 'mrr-churn', Reactivation: 'mrr-reactivation', 'Exchange-rate impact': 'mrr-exchange-rate-impact' };

// checkOverview compares the tiles and both charts with the API's answers to q.
async function checkOverview (page, api, q) {
  const [all, mrr] = await Promise.all([api.get('/v1/metrics/all', q), api.get('/v1/metrics/mrr', q)]);
  const tiles = await tilesOnPage(page);
  assert.deepEqual(tiles.map((t) => t.metric), ['mrr', 'arr', 'customers', 'arpa', 'asp', 'customer-churn-rate', 'mrr-churn-rate', 'ltv']);
  const first = all.entries[0];
  const last = all.entries[all.entries.length - 1];
  for (const t of tiles) {
    const kind = KIND[t.metric];
    const current = all.summary[`current-${t.metric}`];
    assert.equal(t.dataValue, current, `${t.metric}: data-value`);
    assert.equal(shown(kind, t.value), expected(kind, current), `${t.metric}: shown ${t.value}, the API says ${current}`);
    assert.equal(number(t.pct), round2(all.summary[`${t.metric}-percentage-change`]), `${t.metric}: change ${t.pct}`);
    if (all.entries.length >= 2) {
      const delta = last[t.metric] - first[t.metric];
      assert.equal(shown(kind, t.range.split(' since ')[0]), expected(kind, delta), `${t.metric}: range change ${t.range}`);
      assert.ok(t.range.endsWith(`since ${first.date}`), t.range);
    }
  }
  const mrrBars = Object.fromEntries((await barsOnPage(page, 'mrr-chart')).map((l) => {
    const m = l.match(/^MRR, (\d{4}-\d{2}-\d{2}): (.+)$/);
    assert.ok(m, `MRR bar label ${l}`);
    return [m[1], cents(m[2])];
  }));
  assert.deepEqual(mrrBars, Object.fromEntries(mrr.entries.map((e) => [e.date, e.mrr])), 'MRR bars');
  const moveBars = {};
  for (const l of await barsOnPage(page, 'movements-chart')) {
    const m = l.match(/^(.+), (\d{4}-\d{2}-\d{2}): (.+)$/);
    assert.ok(m && LABEL[m[1]], `movement bar label ${l}`);
    moveBars[`${m[2]} ${LABEL[m[1]]}`] = cents(m[3]);
  }
  const want = {};
  for (const e of mrr.entries) {
    for (const k of Object.values(LABEL)) if (e[k]) want[`${e.date} ${k}`] = e[k];
  }
  assert.deepEqual(moveBars, want, 'movement bars');
  return { all, mrr };
}

async function applyFilters (page, { start, end, interval, geo = '', plans = [] }) {
  await page.fill('#f-start', start);
  await page.fill('#f-end', end);
  await page.selectOption('#f-interval', interval);
  await page.fill('#f-geo', geo);
  if (!(await page.$eval('details.plans', (d) => d.open))) await page.click('details.plans summary');
  for (const box of await page.$$('input[name=plans]')) {
    const value = await box.getAttribute('value');
    if (plans.includes(value)) await box.check(); else await box.uncheck();
  }
  await page.click('#f-apply');
  await page.waitForSelector('#movements-chart svg');
}

// settle waits for the page's renders to finish (two animation frames).
const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

// shoot writes the page as it is in light mode, dark mode and at a phone's width, and
// checks that nothing overflows the phone's width.
async function shoot (page, name) {
  const desktop = { width: 1280, height: 900 };
  await page.emulateMedia({ colorScheme: 'light' });
  await settle(page);
  await page.screenshot({ path: join(shots, `${name}-light.png`), fullPage: true });
  await page.emulateMedia({ colorScheme: 'dark' });
  await settle(page);
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, 'rgb(13, 17, 23)', `${name}: the dark palette applies`);
  await page.screenshot({ path: join(shots, `${name}-dark.png`), fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 390, height: 844 });
  await settle(page);
  await settle(page);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 0, `${name}: ${overflow}px wider than a 390px phone`);
  await page.screenshot({ path: join(shots, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize(desktop);
  await settle(page);
}

// ------------------------------------------------------------------ the test

describe('dashboard in Chromium', () => {
  let browser, page, api, key, ds, imp;
  const problems = []; // CSP refusals, script errors, requests carrying the key in the URL
  const q = { 'start-date': ymd(M(-5)), 'end-date': ymd(new Date()), interval: 'month' };

  before(async () => {
    assert.ok(base, 'SUBSIGHT_BASE_URL is not set: run through test/dashboard/run.sh');
    rmSync(shots, { recursive: true, force: true });
    mkdirSync(shots, { recursive: true });
    const launching = chromium.launch({
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      // Debian's chromium as root needs --no-sandbox; the rest keep it off the network.
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--disable-default-apps']
    });
    key = await createAccount();
    api = apiClient(key);
    ds = await api.post('/v1/data_sources', { name: 'Test billing' });
    imp = await api.post(`/v1/data_sources/${ds.uuid}/json_imports`, payload());
    const done = await until('import', () => api.get(`/v1/data_sources/${ds.uuid}/json_imports/${imp.id}`), (i) => i.status === 'completed');
    for (const [k, d] of Object.entries(done.status_details)) assert.equal(d.status, 'imported', `${k}: ${JSON.stringify(d)}`);
    // The metrics follow the import asynchronously (jobs worker): wait for the figures.
    await until('metrics', () => api.get('/v1/metrics/all', q),
      (a) => a.summary['current-mrr'] === EXPECTED_MRR && a.summary['current-customers'] === EXPECTED_CUSTOMERS);
    await until('activities', () => api.get('/v1/activities', { per_page: '200' }), (a) => a.entries.length === 11);
    browser = await launching;
    page = await browser.newPage({ viewport: { width: 1280, height: 900 }, locale: 'en-US', colorScheme: 'light' });
    // The expected console errors are the browser's notes on the wrong key's 401 and on the
    // 404 that tells a data source not connected to Stripe.
    const expectedError = (m) => /status of 401/.test(m.text()) || (/status of 404/.test(m.text()) && /\/stripe$/.test(m.location().url));
    page.on('console', (m) => { if (m.type() === 'error' && !expectedError(m)) problems.push(`console: ${m.text()} (${m.location().url})`); });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('request', (r) => { if (r.url().includes(key) || r.url().includes('browser0test')) problems.push(`a key or secret in a URL: ${r.url()}`); });
    console.log(`# seeded in ${Date.now() - t0} ms`);
  });

  after(async () => {
    await browser?.close();
    console.log(`# dashboard test: ${Date.now() - t0} ms; screenshots in ${shots}`);
  });

  test('the page and its assets come with the security headers', async () => {
    const res = await fetch(base + '/');
    const html = await res.text();
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-security-policy'), /default-src 'none'; script-src 'self'/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    const script = html.match(/src="(\/assets\/app-[^"]+\.js)"/)[1];
    const asset = await fetch(base + script);
    assert.equal(asset.status, 200);
    assert.equal(asset.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.ok((await asset.text()).length > 1000); // read to the end: an unread body holds its connection
  });

  test('a wrong key gets a clear message and is not kept', async () => {
    await page.goto(base + '/');
    await page.fill('#api-key', 'wrong_key_0123456789abcdef');
    await page.keyboard.press('Enter');
    const msg = await page.waitForSelector('#login-error:not([hidden])');
    assert.match(await msg.textContent(), /This API key was not accepted \(401: No valid API key provided\)/);
    assert.equal(await page.$eval('#api-key', (i) => i.getAttribute('aria-invalid')), 'true');
    assert.equal(await page.evaluate(() => sessionStorage.length + localStorage.length), 0);
    await shoot(page, 'login-wrong-key');
  });

  test('the key opens the overview and stays in session storage only', async () => {
    await page.fill('#api-key', key);
    await page.click('.login button[type=submit]');
    await page.waitForSelector('#movements-chart svg');
    assert.equal(await page.textContent('#account-name'), 'Browser Test GmbH · EUR');
    const storage = await page.evaluate(() => ({ session: sessionStorage.getItem('subsight.apiKey'), local: localStorage.length, cookie: document.cookie }));
    assert.deepEqual(storage, { session: key, local: 0, cookie: '' });
    assert.ok(!page.url().includes(key));
  });

  test('tiles and chart bars equal the Metrics API, unfiltered and filtered', async () => {
    await applyFilters(page, { start: q['start-date'], end: q['end-date'], interval: 'month' });
    const { all } = await checkOverview(page, api, q);
    assert.equal(all.summary['current-mrr'], EXPECTED_MRR);
    assert.match((await tilesOnPage(page))[0].value, /^€130\.00$/, 'MRR in the account currency with its sign');
    await shoot(page, 'overview');

    // Germany by week: the filter reaches the API as it takes it.
    await applyFilters(page, { start: q['start-date'], end: q['end-date'], interval: 'week', geo: 'de' });
    const de = await checkOverview(page, api, { ...q, interval: 'week', geo: 'DE' });
    assert.equal(de.all.summary['current-mrr'], 6000, 'alpha and delta');
    assert.ok(page.url().includes('geo=DE') && page.url().includes('interval=week'));

    // One plan by quarter.
    const plans = await api.get('/v1/plans', { data_source_uuid: ds.uuid });
    const pro = plans.plans.find((p) => p.external_id === 'pro').uuid;
    await applyFilters(page, { start: q['start-date'], end: q['end-date'], interval: 'quarter', plans: [pro] });
    const proOnly = await checkOverview(page, api, { ...q, interval: 'quarter', plans: pro });
    assert.equal(proOnly.all.summary['current-mrr'], 10000, 'beta and delta on Pro');
    await applyFilters(page, { start: q['start-date'], end: q['end-date'], interval: 'month' });
  });

  test('keyboard navigation reaches the main controls', async () => {
    // A fresh load, so that Tab starts at the top of the document.
    await page.goto(base + '/#/');
    await page.reload();
    await page.waitForSelector('#movements-chart svg');
    const reached = [];
    for (let i = 0; i < 50; i++) {
      await page.keyboard.press('Tab');
      reached.push(await page.evaluate(() => {
        const el = document.activeElement;
        return el.id ? '#' + el.id : `${el.tagName.toLowerCase()}:${el.textContent.trim()}`;
      }));
    }
    for (const want of ['a:Skip to content', 'a:Overview', 'a:Activities', 'a:Customers', 'a:Imports', 'a:Stripe', 'button:Last 12 months',
      '#f-start', '#f-end', '#f-interval', '#f-geo', '#f-apply']) {
      assert.ok(reached.includes(want), `Tab never reached ${want}: ${reached.join(' → ')}`);
    }
    // Enter on a focused link navigates, and focus lands on the new view's heading.
    await page.focus('#nav a[href="#/customers"]');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1' && document.activeElement.textContent === 'Customers');
  });

  test('customer list: search by name and e-mail, status filter, pages', async () => {
    const rowNames = () => page.$$eval('.paged tbody tr th', (els) => els.map((e) => e.textContent));
    await page.goto(base + '/#/customers');
    await page.waitForSelector('.paged tbody tr');
    const everyone = await api.get('/v1/customers', { per_page: '200' });
    assert.deepEqual(await rowNames(), everyone.entries.map((c) => c.name));
    await shoot(page, 'customers');

    await page.fill('#c-search', 'bAkErY');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => [...document.querySelectorAll('.paged tbody tr th')].map((e) => e.textContent).join() === 'Beta Bakery');
    await page.fill('#c-search', 'delta@example.test');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => [...document.querySelectorAll('.paged tbody tr th')].map((e) => e.textContent).join() === 'Delta Dental');

    await page.fill('#c-search', '');
    await page.selectOption('#c-status', 'Cancelled');
    const cancelled = await api.get('/v1/customers', { status: 'Cancelled', per_page: '200' });
    assert.deepEqual(cancelled.entries.map((c) => c.name).sort(), ['Eta Estates', 'Gamma Games']);
    await page.waitForFunction((want) => [...document.querySelectorAll('.paged tbody tr th')].map((e) => e.textContent).join() === want,
      cancelled.entries.map((c) => c.name).join());

    // Ten a page: the second page by the API's cursor, and back.
    await page.selectOption('#c-status', '');
    await page.selectOption('#c-size', '10');
    const first = await api.get('/v1/customers', { per_page: '10' });
    await page.waitForFunction((n) => document.querySelectorAll('.paged tbody tr').length === n, first.entries.length);
    assert.deepEqual(await rowNames(), first.entries.map((c) => c.name));
  });

  test('a customer\'s page: attributes, subscriptions with MRR, activities, invoices', async () => {
    await page.goto(base + '/#/customers?q=beta');
    await page.click('text=Beta Bakery');
    await page.waitForSelector('#cust-invoices');
    assert.equal(await page.textContent('h1'), 'Beta Bakery');
    const beta = (await api.get('/v1/customers/search', { email: 'beta@example.test' })).entries[0];
    assert.ok(page.url().endsWith(`#/customers/${beta.uuid}`));
    const attrs = await page.$$eval('.attributes div', (els) => Object.fromEntries(els.map((d) => [d.querySelector('dt').textContent, d.querySelector('dd').textContent])));
    assert.equal(attrs['E-mail'], 'beta@example.test');
    assert.equal(attrs.Status, beta.status);
    assert.equal(cents(attrs.MRR), beta.mrr);
    assert.equal(beta.mrr, 5000);
    const subs = await api.get(`/v1/customers/${beta.uuid}/subscriptions`);
    const subRows = await page.$$eval('section[aria-labelledby=cust-subscriptions] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    assert.deepEqual(subRows.map((r) => [r[0], cents(r[6])]), subs.entries.map((s) => [s.plan, s.mrr]));
    const acts = await api.get(`/v1/customers/${beta.uuid}/activities`);
    const actRows = await page.$$eval('section[aria-labelledby=cust-activities] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    assert.deepEqual(actRows.map((r) => cents(r[3])).sort(), acts.entries.map((a) => a['activity-mrr-movement']).sort());
    assert.equal(actRows.length, 2, 'new business and expansion');
    const invs = await api.get('/v1/invoices', { customer_uuid: beta.uuid, per_page: '100' });
    const invRows = await page.$$eval('section[aria-labelledby=cust-invoices] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    assert.equal(invRows.length, invs.invoices.length);
    assert.equal(invRows.length, 5);
    assert.deepEqual(invRows.map((r) => r[1]).sort(), invs.invoices.map((i) => i.external_id).sort());
    await shoot(page, 'customer');
  });

  test('the activity feed pages by cursor', async () => {
    const feed = await api.get('/v1/activities', { per_page: '10', order: '-date' });
    const next = await api.get('/v1/activities', { per_page: '10', order: '-date', cursor: feed.cursor });
    const rows = () => page.$$eval('.paged tbody tr', (trs) => trs.map((tr) => `${tr.children[1].textContent}|${tr.children[4].textContent}`));
    const want = (entries) => entries.map((a) => `${a['customer-name']}|${a['activity-mrr-movement']}`);
    const asShown = async () => (await rows()).map((r) => { const [n, v] = r.split('|'); return `${n}|${cents(v)}`; });
    await page.goto(base + '/#/activities?per_page=10');
    await page.waitForSelector('.paged tbody tr');
    assert.deepEqual(await asShown(), want(feed.entries));
    await shoot(page, 'activities');
    await page.click('.pager .next');
    await page.waitForFunction(() => document.querySelector('.page-no').textContent === 'Page 2');
    assert.deepEqual(await asShown(), want(next.entries));
    assert.equal(await page.$eval('.pager .next', (b) => b.disabled), !next.has_more);
    await page.click('.pager .prev');
    await page.waitForFunction(() => document.querySelector('.page-no').textContent === 'Page 1');
    assert.deepEqual(await asShown(), want(feed.entries));
  });

  test('a json_import\'s progress, per customer', async () => {
    const status = await api.get(`/v1/data_sources/${ds.uuid}/json_imports/${imp.id}`);
    await page.goto(base + `/#/imports/${ds.uuid}`);
    await page.waitForSelector('.import-list tbody tr');
    const listed = await page.$$eval('.import-list tbody tr', (trs) => trs.map((tr) => [tr.children[0].textContent, tr.children[2].textContent]));
    assert.deepEqual(listed, [[imp.id, 'completed']], 'the data source\'s one import, from the json_imports listing');
    await page.click(`.import-list a[href$="/${imp.id}"]`);
    await page.waitForSelector('#import-status');
    assert.equal(await page.textContent('#import-status'), 'completed');
    const rows = await page.$$eval('.import-result tbody tr', (trs) => trs.map((tr) => [tr.children[0].textContent, tr.children[1].textContent]));
    assert.deepEqual(Object.fromEntries(rows), Object.fromEntries(Object.entries(status.status_details).map(([k, d]) => [k === 'plans' ? 'Plans' : k, d.status])));
    assert.equal(rows.length, CUSTOMERS.length + 1);
    await shoot(page, 'import');
  });

  test('connecting a data source to Stripe: the webhook URL, and the secrets never shown', async () => {
    const secret = 'whsec_browser0test0secret';
    const restricted = 'rk_test_browser0test0key42';
    const path = `/v1/data_sources/${ds.uuid}/stripe`;
    const expected = `${base}/stripe/webhooks/${ds.uuid}`;
    await page.goto(base + `/#/stripe/${ds.uuid}`);
    await page.waitForSelector('#stripe-form');
    assert.equal(await page.textContent('#stripe-webhook-url'), expected, 'the URL to register, before connecting');
    // A typo is named at its field, and nothing is sent.
    await page.fill('#s-secret', 'sk_not_a_signing_secret');
    await page.click('#stripe-form button[type=submit]');
    await page.waitForSelector('#s-secret-error:not([hidden])');
    assert.equal(await page.getAttribute('#s-secret', 'aria-invalid'), 'true');
    await page.fill('#s-secret', secret);
    await page.fill('#s-key', restricted);
    await page.selectOption('#s-deleted', 'delete');
    await page.click('#stripe-form button[type=submit]');
    await page.waitForSelector('#stripe-disconnect');
    const conn = await api.get(path);
    assert.equal(conn.webhook_url, expected, 'the API\'s webhook URL is the one the page showed');
    assert.equal(await page.textContent('#stripe-webhook-url'), conn.webhook_url);
    assert.equal(await page.textContent('#stripe-key'), `…${conn.api_key_last4}`);
    assert.equal(conn.api_key_last4, restricted.slice(-4));
    assert.equal(conn.settings.deleted_customers, 'delete');
    assert.deepEqual([await page.inputValue('#s-secret'), await page.inputValue('#s-key')], ['', ''], 'the fields are emptied');
    const shown = await page.evaluate(() => document.documentElement.outerHTML + location.href);
    assert.ok(!shown.includes('browser0test'), 'no secret in the page or its URL');
    await shoot(page, 'stripe');
    await page.click('#stripe-disconnect');
    await page.waitForFunction(() => !document.querySelector('#stripe-disconnect'));
    await assert.rejects(api.get(path), /404/, 'disconnected');
  });

  test('forgetting the key clears it; nothing broke on the way', async () => {
    await page.click('#sign-out');
    await page.waitForSelector('#api-key');
    assert.equal(await page.evaluate(() => sessionStorage.length + localStorage.length), 0);
    assert.deepEqual(problems, [], 'no CSP refusal, script error, or key or secret in a URL');
  });
});
