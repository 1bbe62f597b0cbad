//go:build !linux

package emulator

import "errors"

// processUsage needs Linux's /proc.
func processUsage(int) (Usage, error) {
	return Usage{}, errors.ErrUnsupported
}
