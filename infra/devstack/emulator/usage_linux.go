//go:build linux

package emulator

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of the CPU times in /proc/<pid>/stat: 100 per second on Linux
// whatever the kernel's own tick (USER_HZ).
const userHZ = 100

// processUsage reads a process's CPU time from /proc/<pid>/stat and its memory from
// /proc/<pid>/status.
func processUsage(pid int) (Usage, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Usage{}, err
	}
	// The command name (field 2) is in parentheses and may hold spaces: the fields
	// after it start at the last ')'. utime and stime are fields 14 and 15.
	end := bytes.LastIndexByte(stat, ')')
	fields := strings.Fields(string(stat[end+1:]))
	if end < 0 || len(fields) < 13 {
		return Usage{}, fmt.Errorf("emulator: unexpected /proc/%d/stat: %q", pid, stat)
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return Usage{}, fmt.Errorf("emulator: /proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	u := Usage{CPU: time.Duration(ticks) * time.Second / userHZ}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Usage{}, err
	}
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		name, value, _ := strings.Cut(sc.Text(), ":")
		var dst *int64
		switch name {
		case "VmRSS":
			dst = &u.RSS
		case "VmHWM":
			dst = &u.PeakRSS
		default:
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			return Usage{}, fmt.Errorf("emulator: /proc/%d/status %s: %w", pid, name, err)
		}
		*dst = kb << 10
	}
	return u, nil
}
