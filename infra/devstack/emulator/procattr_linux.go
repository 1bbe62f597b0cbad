//go:build linux

package emulator

import (
	"os/exec"
	"syscall"
)

// setProcAttrs puts moto in its own process group (so Stop can kill the group) and
// asks the kernel to kill it if this process dies without calling Stop (a test
// binary killed by a timeout must not leave moto behind).
func setProcAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
