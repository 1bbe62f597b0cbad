// Unit tests of the dashboard's pure modules (node --test web/test/; make test runs them).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';

import { errorMessage } from '../src/api.js';
import { money, percent, periodLabel } from '../src/format.js';
import { cflAnd, cflCondition, EXCHANGE_RATE, metricsQuery, movementRows, movementSeries, presets, tiles, TILES } from '../src/metrics.js';

const entry = (date, mrr, moves = {}) => ({
  date, mrr, 'percentage-change': 0, 'mrr-new-business': 0, 'mrr-expansion': 0, 'mrr-contraction': 0, 'mrr-churn': 0, 'mrr-reactivation': 0, ...moves
});

describe('movements', () => {
  test('five series and only non-zero rows in a single-currency answer', () => {
    const entries = [entry('2024-01-31', 1000, { 'mrr-new-business': 1000 }), entry('2024-02-29', 700, { 'mrr-churn': -500, 'mrr-expansion': 200 })];
    assert.equal(movementSeries(entries).length, 5);
    assert.deepEqual(movementRows(entries).map((r) => [r.date, r.label, r.value]), [
      ['2024-01-31', 'New business', 1000], ['2024-02-29', 'Expansion', 200], ['2024-02-29', 'Churn', -500]]);
  });
  test('the exchange-rate impact is a sixth series exactly when the answer has the key', () => {
    const entries = [entry('2024-01-31', 6250, { 'mrr-new-business': 6250, [EXCHANGE_RATE.key]: 0 }),
      entry('2024-02-29', 6350, { [EXCHANGE_RATE.key]: 100 })];
    assert.deepEqual(movementSeries(entries).at(-1), EXCHANGE_RATE);
    assert.deepEqual(movementRows(entries).map((r) => [r.date, r.label, r.value]), [
      ['2024-01-31', 'New business', 6250], ['2024-02-29', 'Exchange-rate impact', 100]]);
  });
});

describe('tiles', () => {
  test('current value, the API\'s change and the change over the range, for every tile', () => {
    const summary = {};
    const e1 = { date: '2024-01-31' };
    const e2 = { date: '2024-02-29' };
    TILES.forEach((t, i) => {
      summary[`current-${t.key}`] = 100 + i;
      summary[`previous-${t.key}`] = 50;
      summary[`${t.key}-percentage-change`] = i;
      e1[t.key] = 10;
      e2[t.key] = 100 + i;
    });
    const got = tiles({ entries: [e1, e2], summary });
    assert.equal(got.length, 8);
    got.forEach((t, i) => {
      assert.equal(t.current, 100 + i);
      assert.equal(t.change, i);
      assert.deepEqual(t.range, { from: '2024-01-31', to: '2024-02-29', delta: 90 + i });
    });
    assert.equal(tiles({ entries: [e1], summary })[0].range, null);
  });
});

describe('formats and queries', () => {
  test('amounts in cents with the currency sign', () => {
    assert.equal(money(123456, 'USD'), '$1,234.56');
    assert.equal(money(-500, 'EUR'), '-€5.00');
    assert.equal(money(100, 'GBP', { signed: true }), '+£1.00');
    assert.equal(percent(3.456), '3.46%');
    assert.equal(percent(-2, { signed: true }), '-2%');
  });
  test('period labels', () => {
    assert.equal(periodLabel('2024-03-31', 'month'), 'Mar 2024');
    assert.equal(periodLabel('2024-06-30', 'quarter'), 'Q2 2024');
    assert.equal(periodLabel('2024-12-31', 'year'), '2024');
    assert.equal(periodLabel('2024-03-05', 'day'), '5 Mar');
  });
  test('presets end today with their interval', () => {
    const p = presets(new Date(Date.UTC(2024, 2, 15)));
    assert.deepEqual(p.find((x) => x.id === '12m'), { id: '12m', label: 'Last 12 months', start: '2023-04-01', end: '2024-03-15', interval: 'month' });
    assert.equal(p.find((x) => x.id === '30d').start, '2024-02-15');
    assert.equal(p.find((x) => x.id === '8q').start, '2022-04-01');
  });
  test('the Metrics API query carries the filters as the API takes them', () => {
    const q = metricsQuery({ start: '2024-01-01', end: '2024-12-31', interval: 'week', geo: 'US,GB', plans: ['pl_1', 'pl_2'] });
    assert.equal(q.toString(), 'start-date=2024-01-01&end-date=2024-12-31&interval=week&geo=US%2CGB&plans=pl_1%2Cpl_2');
  });
  test('error bodies of every family', () => {
    assert.equal(errorMessage(401, { code: 401, message: 'No valid API key provided', param: null }), 'No valid API key provided');
    assert.equal(errorMessage(422, { error: 'Invalid', error_details: [] }), 'Invalid');
    assert.equal(errorMessage(422, { errors: { name: "can't be blank" } }), "name: can't be blank");
    assert.equal(errorMessage(502, null), 'HTTP 502');
  });
});

describe('segments in CFL', () => {
  test('strings are quoted with quotes doubled, numbers and dates stay bare', () => {
    assert.equal(cflCondition('currency', 'ANY', 'USD, EUR'), "currency~ANY~'USD','EUR'");
    assert.equal(cflCondition('tags', 'NONE', "o'brien"), "tags~NONE~'o''brien'");
    assert.equal(cflCondition('mrr', 'BETWEEN', '40, 60.5'), 'mrr~BETWEEN~40,60.5');
    assert.equal(cflCondition('customer_since', 'LT', '2024-02-01'), 'customer_since~LT~2024-02-01');
  });
  test('an unknown filter, an operator it does not take or no value writes nothing', () => {
    assert.equal(cflCondition('colour', 'ANY', 'red'), '');
    assert.equal(cflCondition('region', 'GT', 'US'), '');
    assert.equal(cflCondition('region', 'ANY', ' , '), '');
  });
  test('conditions join with ~AND~ and the query carries them as filters', () => {
    const expr = cflAnd("region~ANY~'US'", '', cflCondition('mrr', 'GT', '150'));
    assert.equal(expr, "region~ANY~'US'~AND~mrr~GT~150");
    const q = metricsQuery({ start: '2024-01-01', end: '2024-12-31', interval: 'month', geo: '', plans: [], filters: expr });
    assert.equal(q.get('filters'), expr);
  });
});
