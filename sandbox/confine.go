package sandbox

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// Confinement of the server process itself, on top of the namespaces: no
// controlling terminal, no inherited descriptors, no_new_privs, no
// capabilities and a seccomp filter. The filter is built with
// go-seccomp-bpf and passed as raw struct sock_filter records to the
// builtin backend's helper (init_helper.c loads it in the server's process
// between fork and exec) or to bwrap with --seccomp.

// Terminal ioctls a server must never issue: TIOCSTI pushes bytes into a
// terminal's input queue (keystrokes for the user's shell), TIOCLINUX
// selection paste does the same on a virtual console.
const (
	ioctlTIOCSTI   = 0x5412
	ioctlTIOCLINUX = 0x541C
)

// deniedSyscalls are refused with EPERM: tracing other processes, the
// kernel keyring, BPF and perf, userfaultfd (a classic exploit aid),
// everything that mounts or pivots, kexec and modules, and joining other
// namespaces.
var deniedSyscalls = []string{
	"ptrace", "process_vm_readv", "process_vm_writev",
	"keyctl", "add_key", "request_key",
	"bpf", "perf_event_open", "userfaultfd",
	"mount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen", "fsmount", "fsconfig", "fspick", "mount_setattr",
	"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
	"setns", "open_by_handle_at", "name_to_handle_at",
	"reboot", "swapon", "swapoff", "acct", "syslog", "iopl", "ioperm",
	// io_uring performs opens, chmods and connects in the kernel's own
	// threads, where this filter never sees them.
	"io_uring_setup", "io_uring_enter", "io_uring_register",
}

// setIDBits are S_ISUID|S_ISGID: a server may never make a set-id file, in
// an --expose-rw folder it would be left on the host.
const setIDBits = 0o6000

// seccompPolicy returns the filter for the native architecture: allow by
// default, refuse the calls above, the terminal ioctls, new user
// namespaces (clone or unshare with CLONE_NEWUSER) and every call that
// would give a file a set-id bit (chmod and its variants, a create with
// such a mode, mknod). clone3 and openat2 pass their flags in memory a
// filter cannot read, so they get ENOSYS, on which libc falls back to
// clone and openat. Calls of any other architecture never reach this
// policy: see [seccompInstructions].
func seccompPolicy() *seccomp.Policy {
	eperm := seccomp.ActionErrno | seccomp.Action(unix.EPERM)
	enosys := seccomp.ActionErrno | seccomp.Action(unix.ENOSYS)
	arg := func(n uint32, op seccomp.Operation, v uint64) seccomp.ArgumentConditions {
		return seccomp.ArgumentConditions{{Argument: n, Operation: op, Value: v}}
	}
	return &seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{Action: eperm, Names: deniedSyscalls},
			{Action: enosys, Names: []string{"clone3", "openat2"}},
			{Action: eperm, NamesWithCondtions: []seccomp.NameWithConditions{
				// The kernel reads the request as 32 bits: refuse any
				// request with high bits set, so TIOCSTI|1<<32 does not
				// slip past the equality tests.
				{Name: "ioctl", Conditions: arg(1, seccomp.Equal, ioctlTIOCSTI)},
				{Name: "ioctl", Conditions: arg(1, seccomp.Equal, ioctlTIOCLINUX)},
				{Name: "ioctl", Conditions: arg(1, seccomp.GreaterThan, 0xffffffff)},
				{Name: "clone", Conditions: arg(0, seccomp.BitsSet, unix.CLONE_NEWUSER)},
				{Name: "unshare", Conditions: arg(0, seccomp.BitsSet, unix.CLONE_NEWUSER)},
				{Name: "chmod", Conditions: arg(1, seccomp.BitsSet, setIDBits)},
				{Name: "fchmod", Conditions: arg(1, seccomp.BitsSet, setIDBits)},
				{Name: "fchmodat", Conditions: arg(2, seccomp.BitsSet, setIDBits)},
				{Name: "fchmodat2", Conditions: arg(2, seccomp.BitsSet, setIDBits)},
				{Name: "creat", Conditions: arg(1, seccomp.BitsSet, setIDBits)},
				{Name: "mknod", Conditions: arg(1, seccomp.BitsSet, setIDBits)},
				{Name: "mknodat", Conditions: arg(2, seccomp.BitsSet, setIDBits)},
				{Name: "open", Conditions: seccomp.ArgumentConditions{
					{Argument: 1, Operation: seccomp.BitsSet, Value: unix.O_CREAT | unix.O_TMPFILE&^unix.O_DIRECTORY},
					{Argument: 2, Operation: seccomp.BitsSet, Value: setIDBits}}},
				{Name: "openat", Conditions: seccomp.ArgumentConditions{
					{Argument: 2, Operation: seccomp.BitsSet, Value: unix.O_CREAT | unix.O_TMPFILE&^unix.O_DIRECTORY},
					{Argument: 3, Operation: seccomp.BitsSet, Value: setIDBits}}},
			}},
		},
	}
}

var seccompProgram struct {
	once sync.Once
	raw  []bpf.RawInstruction
	err  error
}

// seccompRetKillProcess is SECCOMP_RET_KILL_PROCESS: the whole process
// dies of SIGSYS.
const seccompRetKillProcess = 0x80000000

// seccompInstructions returns the filter: a first check that kills the
// process on a call made through any ABI but the native one (i386 through
// int 0x80 on amd64, arm32 on arm64), then [seccompPolicy]. go-seccomp-bpf
// sends a foreign architecture to the default action, which is allow: the
// i386 numbers of ptrace, unshare, mount and keyctl would all pass.
func seccompInstructions() ([]bpf.Instruction, error) {
	native, err := arch.GetInfo("")
	if err != nil {
		return nil, err
	}
	insts, err := seccompPolicy().Assemble()
	if err != nil {
		return nil, err
	}
	return append([]bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(native.ID), SkipTrue: 1},
		bpf.RetConstant{Val: seccompRetKillProcess},
	}, insts...), nil
}

// seccompRaw returns the assembled filter, once per process.
func seccompRaw() ([]bpf.RawInstruction, error) {
	seccompProgram.once.Do(func() {
		insts, err := seccompInstructions()
		if err == nil {
			seccompProgram.raw, err = bpf.Assemble(insts)
		}
		if err != nil {
			seccompProgram.err = fmt.Errorf("assembling seccomp filter: %w", err)
		}
	})
	return seccompProgram.raw, seccompProgram.err
}

// seccompBPF returns the filter as the raw struct sock_filter array that
// bwrap --seccomp reads.
func seccompBPF() ([]byte, error) {
	raw, err := seccompRaw()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	for _, r := range raw {
		_ = binary.Write(&buf, binary.NativeEndian, struct {
			Op     uint16
			Jt, Jf uint8
			K      uint32
		}{r.Op, r.Jt, r.Jf, r.K})
	}
	return buf.Bytes(), nil
}

// markInheritedCloseOnExec sets close-on-exec on every descriptor of this
// process above stderr. Go opens its own descriptors close-on-exec; the
// others were inherited from whatever started mcpvet (a shell, a CI
// runner) and must not reach a server. Descriptors a backend passes on
// purpose go through exec.Cmd.ExtraFiles, which dup2s them past the flag.
func markInheritedCloseOnExec() {
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}

// lastCap is the highest capability number the kernel knows.
func lastCap() int {
	data, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return 63
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return 63
	}
	return n
}

// confinement reads back from the kernel what confines process pid, as
// mechanism names: "no_new_privs", "seccomp" (a filter is installed),
// "caps:none" (every capability set is empty) and "no_ctty" (the process
// has no controlling terminal). Nothing is claimed that was not read.
func confinement(pid int) ([]string, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fields := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok {
			fields[k] = strings.TrimSpace(v)
		}
	}
	var out []string
	if fields["NoNewPrivs"] == "1" {
		out = append(out, "no_new_privs")
	}
	if fields["Seccomp"] == "2" {
		out = append(out, "seccomp")
	}
	none := true
	for _, k := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
		if v, ok := fields[k]; !ok || strings.Trim(v, "0") != "" {
			none = false
		}
	}
	if none {
		out = append(out, "caps:none")
	}
	if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		// Fields after the command name (which may hold spaces): state
		// ppid pgrp session tty_nr ...
		if i := bytes.LastIndexByte(stat, ')'); i > 0 {
			if f := strings.Fields(string(stat[i+1:])); len(f) > 4 && f[4] == "0" {
				out = append(out, "no_ctty")
			}
		}
	}
	return out, nil
}

// readBack returns the confinement of the server, the first child of
// outer whose executable is not skipExe (bwrap's pid 1 forks and the child
// stays bwrap until it execs the server), polling briefly. When the server
// is gone or cannot be read, it warns and claims nothing.
func readBack(s *Server, outer int, skipExe string) []string {
	wait := time.Millisecond
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); wait = min(2*wait, 50*time.Millisecond) {
		pid := firstChild(outer)
		if pid > 0 {
			exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
			if skipExe == "" || (exe != "" && exe != skipExe) {
				if mech, err := confinement(pid); err == nil {
					return mech
				}
			}
		}
		if skipExe == "" || !running(outer) {
			break // the server was there to read, or is gone
		}
		time.Sleep(wait)
	}
	s.warn("could not read the server's confinement back (it exited at once?): no_new_privs, seccomp and capabilities unverified")
	return nil
}

// running reports whether pid exists and is not a zombie.
func running(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	return i > 0 && i+2 < len(stat) && stat[i+2] != 'Z'
}

// firstChild returns the lowest pid among the children of outer, or 0:
// from the children files of its threads when the kernel has them (a few
// small reads; a child is listed under the thread that forked it), else
// by scanning /proc.
func firstChild(outer int) int {
	if pid, read := childFromTaskFiles(outer); read {
		return pid
	}
	return childByScan(outer)
}

// childFromTaskFiles returns the lowest child listed in the children files
// of outer's threads, and whether any of them could be read.
func childFromTaskFiles(outer int) (pid int, read bool) {
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", outer))
	for _, t := range tasks {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", outer, t.Name()))
		if err != nil {
			continue
		}
		read = true
		for f := range strings.FieldsSeq(string(data)) {
			if n, err := strconv.Atoi(f); err == nil && (pid == 0 || n < pid) {
				pid = n
			}
		}
	}
	return pid, read
}

// childByScan returns the lowest child of outer found by scanning /proc
// for its ppid: the way on a kernel without children files
// (CONFIG_PROC_CHILDREN), tested directly since this one has them.
func childByScan(outer int) int {
	var pid int
	forEachProc(func(p procInfo, _ func(int) bool) {
		if p.ppid == outer && (pid == 0 || p.pid < pid) {
			pid = p.pid
		}
	})
	return pid
}
