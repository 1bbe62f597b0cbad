// The API key lives only in this tab's sessionStorage: gone when the tab closes, never in
// localStorage, a cookie or a URL.
const KEY = 'subsight.apiKey';

export const session = {
  get: () => sessionStorage.getItem(KEY),
  set: (key) => sessionStorage.setItem(KEY, key),
  clear: () => sessionStorage.removeItem(KEY)
};
