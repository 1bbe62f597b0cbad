// The overview: filters, the eight tiles (/v1/metrics/all) and the MRR and movements charts
// (/v1/metrics/mrr) for the chosen range, interval, countries, plans and segment (a
// ChartMogul Filter Language expression, written with the builder or by hand).
import { mrrChart, movementsChart } from '../chart.js';
import { append, clear, errorBox, h, loading, table } from '../dom.js';
import { count, money, percent, points } from '../format.js';
import { CFL_FILTERS, cflAnd, cflCondition, INTERVALS, metricsQuery, movementSeries, presets, tiles } from '../metrics.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

// The charts on screen redraw when the colour scheme changes (their colours come from the
// stylesheet's light or dark palette).
let redraw = null;
matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => redraw?.());

function filtersFrom (params) {
  const def = presets(new Date()).find((p) => p.id === '12m');
  const start = params.get('start');
  const end = params.get('end');
  const interval = params.get('interval');
  return {
    start: DATE.test(start ?? '') ? start : def.start,
    end: DATE.test(end ?? '') ? end : def.end,
    interval: INTERVALS.includes(interval) ? interval : def.interval,
    geo: (params.get('geo') ?? '').toUpperCase(),
    plans: (params.get('plans') ?? '').split(',').filter(Boolean),
    filters: params.get('filters') ?? ''
  };
}

function toParams (f) {
  const p = { start: f.start, end: f.end, interval: f.interval };
  if (f.geo) p.geo = f.geo;
  if (f.plans.length) p.plans = f.plans.join(',');
  if (f.filters) p.filters = f.filters;
  return p;
}

// segmentBox is the segment field (CFL, as the Metrics API's `filters` takes it) and a
// builder that appends one condition at a time to it.
function segmentBox (value) {
  const input = h('input', { type: 'text', id: 'f-filters', name: 'filters', value, autocomplete: 'off', spellcheck: 'false',
    placeholder: "e.g. currency~ANY~'USD'~AND~mrr~GT~100", 'aria-describedby': 'f-filters-help' });
  const filterSelect = h('select', { id: 'f-cfl-filter', 'aria-label': 'Segment filter' },
    CFL_FILTERS.map((f) => h('option', { value: f.name }, f.label)));
  const opSelect = h('select', { id: 'f-cfl-op', 'aria-label': 'Operator' });
  const valueInput = h('input', { type: 'text', id: 'f-cfl-value', 'aria-label': 'Values, comma-separated', placeholder: 'values, comma-separated', autocomplete: 'off' });
  const ops = () => {
    const spec = CFL_FILTERS.find((f) => f.name === filterSelect.value);
    opSelect.replaceChildren(...spec.ops.map((o) => h('option', { value: o }, o)));
  };
  filterSelect.addEventListener('change', ops);
  ops();
  const add = h('button', { type: 'button', id: 'f-cfl-add', class: 'chip', onclick: () => {
    const cond = cflCondition(filterSelect.value, opSelect.value, valueInput.value);
    if (!cond) { valueInput.focus(); return; }
    input.value = cflAnd(input.value, cond);
    valueInput.value = '';
  } }, 'Add condition');
  const box = h('div', { class: 'field segment' }, h('label', { for: 'f-filters' }, 'Segment'), input,
    h('span', { id: 'f-filters-help', class: 'help' }, 'ChartMogul Filter Language: filter~OPERATOR~values, joined by ~AND~'),
    h('div', { class: 'builder', role: 'group', 'aria-label': 'Add a segment condition' }, filterSelect, opSelect, valueInput, add));
  return { box, input };
}

export async function overviewView (ctx, params) {
  const { api, account } = ctx;
  const currency = account.currency;
  let filters = filtersFrom(params);
  const plans = await api.all('/v1/plans', {}, 'plans').catch(() => []);

  const results = h('div', { class: 'results', 'aria-live': 'polite' });
  const startInput = h('input', { type: 'date', id: 'f-start', name: 'start', value: filters.start, required: true });
  const endInput = h('input', { type: 'date', id: 'f-end', name: 'end', value: filters.end, required: true });
  const intervalSelect = h('select', { id: 'f-interval', name: 'interval' },
    INTERVALS.map((i) => h('option', { value: i, selected: i === filters.interval }, i[0].toUpperCase() + i.slice(1))));
  const geoInput = h('input', { type: 'text', id: 'f-geo', name: 'geo', value: filters.geo, placeholder: 'e.g. US, GB',
    pattern: '\\s*[A-Za-z]{2}(\\s*,\\s*[A-Za-z]{2})*\\s*', autocomplete: 'off', 'aria-describedby': 'f-geo-help' });
  const planBoxes = plans.map((p) => h('label', { class: 'check' },
    h('input', { type: 'checkbox', name: 'plans', value: p.uuid, checked: filters.plans.includes(p.uuid) }), ` ${p.name}`));
  const planSummary = h('summary', {}, '');
  const planCount = () => {
    const n = planBoxes.filter((l) => l.firstChild.checked).length;
    planSummary.textContent = n ? `Plans: ${n} selected` : 'Plans: all';
  };
  planCount();
  const plansBox = h('details', { class: 'field plans', onchange: planCount }, planSummary,
    planBoxes.length ? h('div', { class: 'plan-list', role: 'group', 'aria-label': 'Plans' }, planBoxes) : h('p', { class: 'help' }, 'No plans yet.'));
  const segment = segmentBox(filters.filters);

  const form = h('form', { class: 'filters', 'aria-label': 'Filters', onsubmit: (ev) => { ev.preventDefault(); apply(); } },
    h('div', { class: 'presets', role: 'group', 'aria-label': 'Ranges' },
      presets(new Date()).map((p) => h('button', { type: 'button', class: 'chip', onclick: () => {
        startInput.value = p.start; endInput.value = p.end; intervalSelect.value = p.interval; apply();
      } }, p.label))),
    h('div', { class: 'fields' },
      h('div', { class: 'field' }, h('label', { for: 'f-start' }, 'From'), startInput),
      h('div', { class: 'field' }, h('label', { for: 'f-end' }, 'To'), endInput),
      h('div', { class: 'field' }, h('label', { for: 'f-interval' }, 'Interval'), intervalSelect),
      h('div', { class: 'field' }, h('label', { for: 'f-geo' }, 'Countries'), geoInput,
        h('span', { id: 'f-geo-help', class: 'help' }, 'Two-letter codes, comma-separated')),
      plansBox,
      segment.box,
      h('button', { type: 'submit', id: 'f-apply' }, 'Apply')));

  async function apply () {
    if (!form.reportValidity()) return;
    plansBox.open = false;
    filters = {
      start: startInput.value,
      end: endInput.value,
      interval: intervalSelect.value,
      geo: geoInput.value.replace(/\s+/g, '').toUpperCase(),
      plans: planBoxes.filter((l) => l.firstChild.checked).map((l) => l.firstChild.value),
      filters: segment.input.value.trim()
    };
    const qs = new URLSearchParams(toParams(filters)).toString();
    history.replaceState(null, '', '#/?' + qs);
    await load();
  }

  async function load () {
    clear(results, loading('metrics'));
    results.setAttribute('aria-busy', 'true');
    const q = metricsQuery(filters);
    try {
      const [all, mrr] = await Promise.all([api.get('/v1/metrics/all', q), api.get('/v1/metrics/mrr', q)]);
      clear(results, tileGrid(all, currency, filters.interval), charts(mrr, currency, filters.interval));
    } catch (e) {
      if (e.status === 401) throw e;
      clear(results, errorBox(e));
    } finally {
      results.removeAttribute('aria-busy');
    }
  }

  const view = h('div', { class: 'overview' },
    h('h1', { tabindex: '-1' }, 'Overview'),
    form,
    results);
  await load();
  return view;
}

function formatValue (kind, v, currency) {
  if (kind === 'money') return money(v, currency);
  if (kind === 'rate') return percent(v);
  return count(v);
}

function tileGrid (all, currency, interval) {
  return h('section', { class: 'tiles', 'aria-label': 'Key metrics' }, tiles(all).map((t) => {
    const up = t.change > 0;
    const good = t.change === 0 ? 'flat' : (up !== Boolean(t.lowerIsBetter) ? 'good' : 'bad');
    const range = t.range && h('p', { class: 'range', 'data-delta': t.range.delta },
      `${t.kind === 'rate' ? points(t.range.delta) : (t.kind === 'money' ? money(t.range.delta, currency, { signed: true }) : (t.range.delta > 0 ? '+' : '') + count(t.range.delta))} since ${t.range.from}`);
    return h('article', { class: 'tile', 'data-metric': t.key, 'data-value': t.current, 'data-change': t.change, 'aria-labelledby': `tile-${t.key}` },
      h('h2', { id: `tile-${t.key}`, title: t.help }, t.label),
      h('p', { class: 'value' }, formatValue(t.kind, t.current, currency)),
      h('p', { class: `change ${good}` },
        h('span', { 'aria-hidden': 'true' }, t.change > 0 ? '▲ ' : (t.change < 0 ? '▼ ' : '')),
        h('span', { class: 'pct' }, percent(t.change, { signed: true })),
        ` vs previous ${interval}`),
      range);
  }));
}

function charts (mrr, currency, interval) {
  const entries = mrr.entries ?? [];
  const section = h('section', { class: 'charts', 'aria-label': 'MRR charts' });
  if (!entries.length) return append(section, [h('p', { class: 'empty' }, 'No periods in this range.')]);
  const series = movementSeries(entries);
  const mrrBox = h('figure', { class: 'chart', id: 'mrr-chart' }, h('figcaption', {}, h('h2', {}, 'MRR')));
  const movBox = h('figure', { class: 'chart', id: 'movements-chart' },
    h('figcaption', {}, h('h2', {}, 'MRR movements'),
      h('ul', { class: 'legend', 'aria-label': 'Series' }, series.map((s) => h('li', {}, h('span', { class: `swatch ${s.className}`, 'aria-hidden': 'true' }), s.label)))));
  append(section, [mrrBox, movBox, dataTable(entries, series, currency, interval)]);

  const draw = () => {
    const width = Math.max(280, Math.floor(section.clientWidth || 640));
    const opts = { currency, interval, width };
    mrrBox.querySelector('svg')?.remove();
    movBox.querySelector('svg')?.remove();
    mrrBox.append(mrrChart(mrrBox, entries, opts));
    movBox.append(movementsChart(movBox, entries, opts));
  };
  // Draw once attached (the width is known then), again when the width or the colour
  // scheme changes.
  requestAnimationFrame(draw);
  let last = 0;
  new ResizeObserver(() => {
    const w = section.clientWidth;
    if (w && Math.abs(w - last) > 8) { last = w; draw(); }
  }).observe(section);
  redraw = draw;
  if (series.length > 5) {
    append(section, [h('p', { class: 'note' }, 'Exchange-rate impact: the change of MRR from foreign-currency subscriptions renewed at a new exchange rate. It is no movement; the API reports it so that MRR at the start plus every bar equals MRR at the end.')]);
  }
  return section;
}

function dataTable (entries, series, currency, interval) {
  const cols = [
    { label: interval === 'day' ? 'Day' : `End of ${interval}`, cell: (e) => e.date },
    { label: 'MRR', numeric: true, cell: (e) => money(e.mrr, currency) },
    ...series.map((s) => ({ label: s.label, numeric: true, cell: (e) => money(e[s.key] ?? 0, currency, { signed: true }) }))
  ];
  return h('details', { class: 'data' }, h('summary', {}, 'The charts\' numbers as a table'),
    table('MRR and movements per period', cols, entries));
}

