// Package parallel runs independent calls concurrently, a bounded number at a time.
package parallel

import "sync"

// For calls f(0), …, f(n-1), at most limit at once, and returns when all have
// returned. A single call runs on the caller's goroutine.
func For(n, limit int, f func(i int)) {
	if n == 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(limit, 1))
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			f(i)
		})
	}
	wg.Wait()
}
