// The overview's charts, drawn with Observable Plot as SVG: real text for the labels (sized
// by the stylesheet, coloured with the page's text colour, so they follow dark mode) and an
// aria-label on every bar ("New business, 2024-03-31: +$1,200.00"), which is what screen
// readers announce and what the browser test reads back.
import { barY, plot, ruleY } from '@observablehq/plot';

import { compactMoney, money, periodLabel } from './format.js';
import { movementRows, movementSeries } from './metrics.js';

// palette reads the series colours from the stylesheet (they differ in dark mode).
function palette (el) {
  const css = getComputedStyle(el);
  const v = (name) => css.getPropertyValue(name).trim();
  return { mrr: v('--c-mrr'), new: v('--c-new'), expansion: v('--c-expansion'), reactivation: v('--c-reactivation'),
    contraction: v('--c-contraction'), churn: v('--c-churn'), fx: v('--c-fx') };
}

// ticks keeps about one label per 80 pixels, always the last period.
function ticks (dates, width) {
  const room = Math.max(2, Math.floor(width / 80));
  const step = Math.ceil(dates.length / room);
  return dates.filter((_, i) => (dates.length - 1 - i) % step === 0);
}

// Plot adds a <style> element to each chart; the stylesheet carries the same rules
// (.chart svg), and the Content-Security-Policy would refuse the inline one.
function finish (svg) {
  svg.querySelectorAll('style').forEach((s) => s.remove());
  return svg;
}

function xScale (dates, interval, width) {
  return { type: 'band', domain: dates, padding: 0.2, ticks: ticks(dates, width), tickFormat: (d) => periodLabel(d, interval), label: null };
}

// mrrChart: MRR at the end of each period.
export function mrrChart (el, entries, { currency, interval, width }) {
  const colours = palette(el);
  const dates = entries.map((e) => e.date);
  return finish(plot({
    width,
    height: 240,
    marginLeft: 64,
    ariaLabel: `MRR by ${interval}`,
    ariaDescription: `MRR at the end of each ${interval} from ${dates[0]} to ${dates[dates.length - 1]}.`,
    x: xScale(dates, interval, width),
    y: { grid: true, nice: true, label: null, tickFormat: (v) => compactMoney(v, currency) },
    marks: [
      barY(entries, { x: 'date', y: 'mrr', fill: colours.mrr, ariaLabel: (e) => `MRR, ${e.date}: ${money(e.mrr, currency)}` }),
      ruleY([0])
    ]
  }));
}

// movementsChart: the five movements (and the exchange-rate impact when the answer has it)
// stacked per period, gains above zero and losses below.
export function movementsChart (el, entries, { currency, interval, width }) {
  const colours = palette(el);
  const series = movementSeries(entries);
  const dates = entries.map((e) => e.date);
  const rows = movementRows(entries);
  return finish(plot({
    width,
    height: 240,
    marginLeft: 64,
    ariaLabel: `MRR movements by ${interval}`,
    ariaDescription: `${series.map((s) => s.label).join(', ')}, stacked per ${interval}; gains above zero, losses below.`,
    x: xScale(dates, interval, width),
    y: { grid: true, nice: true, label: null, tickFormat: (v) => compactMoney(v, currency) },
    color: { domain: series.map((s) => s.label), range: series.map((s) => colours[s.className]) },
    marks: [
      barY(rows, {
        x: 'date', y: 'value', fill: 'label', order: series.map((s) => s.label),
        ariaLabel: (r) => `${r.label}, ${r.date}: ${money(r.value, currency, { signed: true })}`
      }),
      ruleY([0])
    ]
  }));
}
