package apigw

import "sync"

// maxWindows bounds how many accounts' windows a process remembers at once; past it, a
// new account's requests are counted by a write each, as if nothing were remembered.
const maxWindows = 10_000

// windows is what a process learned about each account's window of the current second,
// for the rate gate: whether it already sent a count in that window (so that the next
// request adds to the window rather than trying to open it) and the highest count the
// counter answered (a window past the account's limit is refused for the rest of its
// second without another write: the count only grows within a window). Only the latest
// second is kept, so it holds the accounts of about one second: the first request of a
// new second forgets every earlier window, and a request that started in an earlier
// second and ends late changes nothing. Its zero value is ready.
type windows struct {
	mu      sync.Mutex
	current int64            // the latest second seen
	counts  map[string]int64 // by account, in current; 0 while its first count is on its way
}

// open returns the highest count seen in the account's window of second (0: none yet)
// and whether this process already sent a count in it, and marks it as sent.
func (w *windows) open(account string, second int64) (seen int64, opened bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.at(second) {
		return 0, false
	}
	if n, ok := w.counts[account]; ok {
		return n, true
	}
	if len(w.counts) < maxWindows {
		w.counts[account] = 0
	}
	return 0, false
}

// record keeps a count the counter answered in the account's window of second.
func (w *windows) record(account string, second, n int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.at(second) {
		return
	}
	if seen, ok := w.counts[account]; ok || len(w.counts) < maxWindows {
		w.counts[account] = max(seen, n)
	}
}

// at moves on to second if it is later than the current one (a new map, so that a
// second with many accounts leaves no large map behind) and says whether second is the
// current one; w.mu is held.
func (w *windows) at(second int64) bool {
	if second > w.current || w.counts == nil {
		w.current, w.counts = max(second, w.current), map[string]int64{}
	}
	return second == w.current
}
