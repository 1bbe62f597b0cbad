// The one way the page talks to Subsight: the public API on the page's own origin, with
// the API key as the Basic user name, as every client sends it. The key goes only into
// the Authorization header (never a URL, never a cookie).

export class ApiError extends Error {
  constructor (status, message, param) {
    super(message);
    this.status = status;
    this.param = param;
  }
}

// errorMessage reads the three error families of the API: {"code","message","param"},
// {"error"} and {"errors":{field: message}}, and the gateway's {"message"}.
export function errorMessage (status, body) {
  if (body && typeof body === 'object') {
    if (typeof body.message === 'string') return body.message;
    if (typeof body.error === 'string') return body.error;
    if (body.errors && typeof body.errors === 'object') {
      return Object.entries(body.errors).map(([k, v]) => `${k}: ${v}`).join('; ');
    }
  }
  return `HTTP ${status}`;
}

// errorParam is the field an error names: family A's param, family B's first detail.
export function errorParam (body) {
  if (!body || typeof body !== 'object') return null;
  if (typeof body.param === 'string') return body.param;
  const detail = Array.isArray(body.error_details) ? body.error_details[0] : null;
  return typeof detail?.param === 'string' ? detail.param : null;
}

export function createClient (apiKey, { base = '' } = {}) {
  const authorization = 'Basic ' + btoa(apiKey + ':');

  // request sends one call; a body is sent as JSON. The answer's JSON, or null.
  async function request (method, path, { query, body } = {}) {
    const qs = query ? new URLSearchParams(query).toString() : '';
    const headers = { Authorization: authorization, Accept: 'application/json' };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let res;
    try {
      res = await fetch(base + path + (qs ? '?' + qs : ''), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'omit',
        cache: 'no-store',
        referrerPolicy: 'no-referrer'
      });
    } catch (e) {
      throw new ApiError(0, 'The API could not be reached: ' + e.message);
    }
    let parsed = null;
    const text = await res.text();
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    if (!res.ok) throw new ApiError(res.status, errorMessage(res.status, parsed), errorParam(parsed));
    return parsed;
  }

  const get = (path, query) => request('GET', path, { query });
  const put = (path, body) => request('PUT', path, { body });
  const del = (path) => request('DELETE', path);

  // pages reads a cursor-paginated listing to its end (at most max pages).
  async function all (path, query, key, max = 20) {
    const out = [];
    let cursor = null;
    for (let i = 0; i < max; i++) {
      const page = await get(path, { ...query, per_page: '200', ...(cursor ? { cursor } : {}) });
      out.push(...(page[key] ?? []));
      if (!page.has_more || !page.cursor) break;
      cursor = page.cursor;
    }
    return out;
  }

  return { get, put, del, all };
}
