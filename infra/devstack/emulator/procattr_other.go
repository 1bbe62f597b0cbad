//go:build !linux

package emulator

import (
	"os/exec"
	"syscall"
)

// setProcAttrs puts moto in its own process group so that Stop can kill the group.
func setProcAttrs(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
