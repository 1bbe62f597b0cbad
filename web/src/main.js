// The dashboard: asks for an API key, keeps it in this tab's sessionStorage and shows the
// account through the public API. Views are chosen by the URL's fragment (#/customers),
// so the one page the function serves covers them all; the fragment never holds the key.
import { ApiError, createClient } from './api.js';
import { clear, errorBox, h } from './dom.js';
import { session } from './session.js';
import { activitiesView } from './views/activities.js';
import { customersView } from './views/customers.js';
import { customerView } from './views/customer.js';
import { importsView } from './views/imports.js';
import { overviewView } from './views/overview.js';
import { stripeView } from './views/stripe.js';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const accountBox = document.getElementById('account');
let ctx = null; // {api, account} once a key is accepted
let generation = 0; // the render in progress; older renders stop writing

function route () {
  const [path, query] = location.hash.replace(/^#/, '').split('?');
  return { parts: (path || '/').split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(query ?? '') };
}

// navigate changes the fragment's query without leaving the view (filters, searches).
export function navigate (path, params) {
  const qs = params ? new URLSearchParams(params).toString() : '';
  location.hash = path + (qs ? '?' + qs : '');
}

function showLogin (message) {
  ctx = null;
  nav.hidden = true;
  accountBox.hidden = true;
  const input = h('input', { id: 'api-key', name: 'api-key', type: 'password', required: true, autocomplete: 'off', spellcheck: 'false',
    'aria-describedby': 'api-key-help' + (message ? ' login-error' : '') });
  const error = h('p', { id: 'login-error', class: 'error', role: 'alert' }, message ?? '');
  if (!message) error.hidden = true;
  const button = h('button', { type: 'submit' }, 'Open the dashboard');
  const form = h('form', { class: 'login', onsubmit: async (ev) => {
    ev.preventDefault();
    const key = input.value.trim();
    if (!key) return;
    button.disabled = true;
    button.textContent = 'Checking the key…';
    const err = await signIn(key);
    if (err) {
      button.disabled = false;
      button.textContent = 'Open the dashboard';
      error.textContent = err;
      error.hidden = false;
      input.setAttribute('aria-invalid', 'true');
      input.setAttribute('aria-describedby', 'api-key-help login-error');
      input.focus();
      input.select();
    }
  } },
  h('h1', { tabindex: '-1' }, 'Open your Subsight dashboard'),
  h('label', { for: 'api-key' }, 'API key'),
  input,
  h('p', { id: 'api-key-help', class: 'help' },
    'The key your API calls use. It is kept in this browser tab only (session storage) and sent only to this site\'s API.'),
  error,
  button);
  clear(main, form);
  input.focus();
}

// signIn checks a key with GET /v1/account; it returns an error message, or null.
async function signIn (key) {
  const api = createClient(key);
  try {
    const account = await api.get('/v1/account');
    session.set(key);
    ctx = { api, account };
    document.getElementById('account-name').textContent = `${account.name} · ${account.currency}`;
    nav.hidden = false;
    accountBox.hidden = false;
    render();
    return null;
  } catch (e) {
    session.clear();
    if (e instanceof ApiError && e.status === 401) {
      return `This API key was not accepted (401: ${e.message}). Check the key and try again.`;
    }
    return `The key could not be checked: ${e.message}`;
  }
}

// onAuthFailure: a key that stops working (revoked) sends the person back to the form.
function onAuthFailure (e) {
  if (e instanceof ApiError && e.status === 401) {
    session.clear();
    showLogin('The API no longer accepts this key (401). Enter a valid key.');
    return true;
  }
  return false;
}

async function render () {
  if (!ctx) return;
  const my = ++generation;
  const { parts, params } = route();
  const views = {
    '': () => overviewView(ctx, params),
    activities: () => activitiesView(ctx, params),
    customers: () => (parts[1] ? customerView(ctx, parts[1]) : customersView(ctx, params)),
    imports: () => importsView(ctx, parts[1], parts[2]),
    stripe: () => stripeView(ctx, parts[1])
  };
  const view = views[parts[0] ?? ''];
  for (const a of nav.querySelectorAll('a')) {
    const current = a.getAttribute('href') === '#/' + (parts[0] ?? '');
    if (current) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  if (!view) {
    clear(main, h('h1', { tabindex: '-1' }, 'Not found'), h('p', {}, h('a', { href: '#/' }, 'Back to the overview')));
    return;
  }
  main.setAttribute('aria-busy', 'true');
  try {
    const node = await view();
    if (my !== generation) return;
    clear(main, node);
  } catch (e) {
    if (my !== generation || onAuthFailure(e)) return;
    clear(main, h('h1', { tabindex: '-1' }, 'Something went wrong'), errorBox(e));
  } finally {
    if (my === generation) main.removeAttribute('aria-busy');
  }
  if (my === generation && !main.contains(document.activeElement)) main.querySelector('h1')?.focus({ preventScroll: false });
}

// Views that update themselves after the first render report a lost key here too.
window.addEventListener('unhandledrejection', (ev) => {
  if (onAuthFailure(ev.reason)) ev.preventDefault();
});
window.addEventListener('hashchange', () => render());
document.getElementById('sign-out').addEventListener('click', () => {
  session.clear();
  showLogin();
});

const saved = session.get();
if (saved) {
  signIn(saved).then((err) => { if (err) showLogin(err); });
} else {
  showLogin();
}
