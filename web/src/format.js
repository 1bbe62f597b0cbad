// Number and date formatting. Amounts from the API are integer cents of the account's
// currency (GET /v1/account); Intl gives the currency its sign and the reader's locale
// its separators.

const cache = new Map();
function formatter (key, make) {
  if (!cache.has(key)) cache.set(key, make());
  return cache.get(key);
}

const locale = () => (typeof navigator !== 'undefined' && navigator.language) || 'en-US';

// money(123456, 'USD') is "$1,234.56"; signed adds "+" to gains.
export function money (cents, currency, { signed = false } = {}) {
  if (cents == null || Number.isNaN(cents)) return '—';
  const f = formatter(`m:${currency}:${signed}`, () => new Intl.NumberFormat(locale(), {
    style: 'currency', currency, minimumFractionDigits: 2, maximumFractionDigits: 2, signDisplay: signed ? 'exceptZero' : 'auto'
  }));
  return f.format(cents / 100);
}

// compactMoney(12345600, 'USD') is "$123.5K": chart axes.
export function compactMoney (cents, currency) {
  const f = formatter(`c:${currency}`, () => new Intl.NumberFormat(locale(), {
    style: 'currency', currency, notation: 'compact', maximumFractionDigits: 1
  }));
  return f.format(cents / 100);
}

export function count (n) {
  if (n == null) return '—';
  return formatter('n', () => new Intl.NumberFormat(locale(), { maximumFractionDigits: 0 })).format(n);
}

// percent(3.456) is "3.46%": the API's rates and changes are already percentages.
export function percent (p, { signed = false } = {}) {
  if (p == null || Number.isNaN(p)) return '—';
  const f = formatter(`p:${signed}`, () => new Intl.NumberFormat(locale(), {
    minimumFractionDigits: 0, maximumFractionDigits: 2, signDisplay: signed ? 'exceptZero' : 'auto'
  }));
  return f.format(p) + '%';
}

// points(1.5) is "+1.5 pp": the change of a rate.
export function points (p) {
  const f = formatter('pp', () => new Intl.NumberFormat(locale(), { maximumFractionDigits: 2, signDisplay: 'exceptZero' }));
  return f.format(p) + ' pp';
}

// day("2024-03-31T10:00:00+00:00") is "2024-03-31": the date as the API wrote it, so
// dates in the account's time zone stay in it.
export const day = (iso) => (iso ? String(iso).slice(0, 10) : '—');

// periodLabel names an entry of a Metrics API answer (dated at its period's last day) on
// an axis: "31 Mar" by day or week, "Mar 2024" by month, "Q1 2024", "2024".
export function periodLabel (date, interval) {
  const [y, m, d] = date.split('-').map(Number);
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  switch (interval) {
    case 'year': return String(y);
    case 'quarter': return `Q${Math.ceil(m / 3)} ${y}`;
    case 'month': return `${months[m - 1]} ${y}`;
    default: return `${d} ${months[m - 1]}`;
  }
}

// isoDate gives "YYYY-MM-DD" of a Date in UTC.
export const isoDate = (d) => d.toISOString().slice(0, 10);
