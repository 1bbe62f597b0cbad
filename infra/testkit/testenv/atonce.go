package testenv

import "sync"

// AtOnce calls f(0) … f(n-1), each in its own goroutine, all released at the same
// instant once every goroutine is ready, and returns when all have returned: the
// racing tests' requests meet in the same few milliseconds.
func AtOnce(n int, f func(i int)) {
	var ready, done sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			ready.Done()
			<-start
			f(i)
		}()
	}
	ready.Wait()
	close(start)
	done.Wait()
}
