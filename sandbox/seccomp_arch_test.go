package sandbox

import (
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/mcpvet/mcpvet/internal/testenv"
	"github.com/mcpvet/mcpvet/vocab"
)

// seccompData lays out struct seccomp_data for golang.org/x/net/bpf's VM,
// which loads words big-endian: each 32-bit word is stored big-endian at
// the offset a little-endian kernel reads it from (an argument's low word
// first).
func seccompData(nr int, auditArch uint32, args ...uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[0:], uint32(nr))
	binary.BigEndian.PutUint32(b[4:], auditArch)
	for i, a := range args {
		binary.BigEndian.PutUint32(b[16+8*i:], uint32(a))
		binary.BigEndian.PutUint32(b[16+8*i+4:], uint32(a>>32))
	}
	return b
}

// TestSeccompForeignArchitecture runs the filter on the calls of issue 22
// item 2: before, a call made through a non-native ABI (i386 int 0x80 on
// amd64, arm32 on arm64) fell through to the default action, allow, so
// unshare(CLONE_NEWUSER), mount, ptrace and keyctl all passed. Now every
// foreign-architecture call kills the process, and the native deny list
// (and the set-id chmods of item 1) still answer EPERM.
func TestSeccompForeignArchitecture(t *testing.T) {
	native, err := arch.GetInfo("")
	if err != nil {
		t.Skipf("no seccomp table for %s", runtime.GOARCH)
	}
	foreign := arch.I386
	if native.ID == arch.AARCH64.ID {
		foreign = arch.ARM
	}
	insts, err := seccompInstructions()
	if err != nil {
		t.Fatal(err)
	}
	vm, err := bpf.NewVM(insts)
	if err != nil {
		t.Fatal(err)
	}
	eperm := int(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	const allow, kill = int(unix.SECCOMP_RET_ALLOW), int(seccompRetKillProcess)
	cases := []struct {
		name string
		a    *arch.Info
		call string
		args []uint64
		want int
	}{
		{"foreign getpid", foreign, "getpid", nil, kill},
		{"foreign unshare newuser", foreign, "unshare", []uint64{unix.CLONE_NEWUSER}, kill},
		{"foreign unshare newns", foreign, "unshare", []uint64{unix.CLONE_NEWNS}, kill},
		{"foreign mount", foreign, "mount", nil, kill},
		{"foreign ptrace", foreign, "ptrace", nil, kill},
		{"foreign keyctl", foreign, "keyctl", nil, kill},
		{"foreign chmod setuid", foreign, "chmod", []uint64{0, 0o4755}, kill},
		{"native getpid", native, "getpid", nil, allow},
		{"native ptrace", native, "ptrace", nil, eperm},
		{"native mount", native, "mount", nil, eperm},
		{"native keyctl", native, "keyctl", nil, eperm},
		{"native unshare newuser", native, "unshare", []uint64{unix.CLONE_NEWUSER}, eperm},
		{"native unshare newns", native, "unshare", []uint64{unix.CLONE_NEWNS}, allow},
		{"native io_uring_setup", native, "io_uring_setup", nil, eperm},
		{"native fchmodat setuid", native, "fchmodat", []uint64{0, 0, 0o4755}, eperm},
		{"native fchmodat setgid", native, "fchmodat", []uint64{0, 0, 0o2755}, eperm},
		{"native fchmodat plain", native, "fchmodat", []uint64{0, 0, 0o755}, allow},
		{"native fchmod setuid", native, "fchmod", []uint64{0, 0o4755}, eperm},
		{"native openat create setuid", native, "openat", []uint64{0, 0, unix.O_CREAT | unix.O_WRONLY, 0o4755}, eperm},
		{"native openat create plain", native, "openat", []uint64{0, 0, unix.O_CREAT | unix.O_WRONLY, 0o644}, allow},
		{"native openat read", native, "openat", []uint64{0, 0, unix.O_RDONLY, 0}, allow},
		{"native mknodat setuid", native, "mknodat", []uint64{0, 0, unix.S_IFREG | 0o4755}, eperm},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			nr, ok := tc.a.SyscallNames[tc.call]
			if !ok {
				t.Skipf("%s has no %s", tc.a.Name, tc.call)
			}
			got, err := vm.Run(seccompData(nr|tc.a.SeccompMask, uint32(tc.a.ID), tc.args...))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("filter(%s %s %o) = %#x, want %#x", tc.a.Name, tc.call, tc.args, got, tc.want)
			}
		})
	}
}

// int80Source makes the i386 calls of issue 22 item 2 through int 0x80
// from a static amd64 program, printing each result: getpid, then
// unshare(CLONE_NEWUSER), unshare(CLONE_NEWNS), keyctl and ptrace.
const int80Source = `#include <stdio.h>
static long sys32(long n, long a, long b) {
	long r;
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(n), "b"(a), "c"(b) : "memory", "r8", "r9", "r10", "r11");
	return r;
}
int main(void) {
	setvbuf(stderr, 0, _IONBF, 0);
	fprintf(stderr, "int80 start\n");
	fprintf(stderr, "getpid32=%ld\n", sys32(20, 0, 0));
	fprintf(stderr, "unshare32(NEWUSER)=%ld\n", sys32(310, 0x10000000, 0));
	fprintf(stderr, "unshare32(NEWNS)=%ld\n", sys32(310, 0x00020000, 0));
	fprintf(stderr, "keyctl32=%ld\n", sys32(288, 0, 0));
	fprintf(stderr, "ptrace32=%ld\n", sys32(26, 0, 0));
	return 0;
}
`

// int80HostFacts describes what decides whether int 0x80 reaches the
// kernel's i386 entry: the kernel release, its IA32 emulation and PVM
// options when /proc/config.gz shows them, and an ia32_emulation= boot
// parameter. (On the PVM guests of the development machines,
// CONFIG_IA32_EMULATION=y but int 0x80 raises a general protection fault
// with error code 0x402, IDT vector 0x80: the guest kernel runs under
// PVM's switcher, which offers no int 0x80 gate to user mode.)
func int80HostFacts() string {
	var facts []string
	if rel, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		facts = append(facts, "kernel "+strings.TrimSpace(string(rel)))
	}
	if out, err := exec.Command("sh", "-c", "zcat /proc/config.gz 2>/dev/null | grep -E '^CONFIG_(IA32_EMULATION|IA32_EMULATION_DEFAULT_DISABLED|PVM_GUEST)='").Output(); err == nil && len(out) > 0 {
		facts = append(facts, strings.Join(strings.Fields(string(out)), " "))
	} else {
		facts = append(facts, "kernel config not readable")
	}
	if cmdline, err := os.ReadFile("/proc/cmdline"); err == nil {
		p := "no ia32_emulation= boot parameter"
		for _, f := range strings.Fields(string(cmdline)) {
			if strings.HasPrefix(f, "ia32_emulation=") {
				p = "boot parameter " + f
			}
		}
		facts = append(facts, p)
	}
	return strings.Join(facts, "; ")
}

// TestSeccompInt80 builds a static amd64 program that makes i386 calls
// with int 0x80 and runs it under every isolating backend: the process
// must die of SIGSYS at its first i386 call. It needs gcc (CI installs it)
// and a kernel that has the i386 entry: where int 0x80 already faults
// outside any sandbox, there is nothing to filter, and the test says so.
func TestSeccompInt80(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("int 0x80 is the amd64 host's i386 entry")
	}
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		testenv.Need(t, "gcc is not installed")
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	os.Chmod(filepath.Dir(dir), 0o755)
	src, bin := filepath.Join(dir, "int80.c"), filepath.Join(dir, "int80")
	if err := os.WriteFile(src, []byte(int80Source), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(gcc, "-static", "-O0", "-o", bin, src).CombinedOutput(); err != nil {
		testenv.Need(t, "gcc -static failed (static libc missing?): "+strings.TrimSpace(string(out)))
	}
	host, herr := exec.Command(bin).CombinedOutput()
	if !strings.Contains(string(host), "getpid32=") {
		// Only a host fact may skip this test, and it is printed (on CI
		// too): the program ran, and its first int 0x80 killed it
		// outside any sandbox, so this kernel has no i386 entry to
		// filter. Anything else fails.
		var ee *exec.ExitError
		if !strings.Contains(string(host), "int80 start") || !errors.As(herr, &ee) || !ee.Sys().(syscall.WaitStatus).Signaled() {
			t.Fatalf("the int 0x80 program failed outside any sandbox for another reason than the kernel's i386 entry: %v, output %q", herr, host)
		}
		t.Skipf("this kernel has no usable i386 entry: outside any sandbox the first int 0x80 killed the program with %v (%s); the filter is checked by TestSeccompForeignArchitecture", ee.Sys().(syscall.WaitStatus).Signal(), int80HostFacts())
	}
	for _, backend := range isolatingTestBackends(t) {
		t.Run(backend, func(t *testing.T) {
			plan := &vocab.Plan{Key: "int80", Name: "int80", Transport: vocab.TransportStdio, Command: bin}
			s := launch(t, plan, testOptions(backend), "")
			// The process starts with the connection (the stdio
			// transport's Connect); without it Info saw a server never
			// started. CI's kernel has no i386 entry and skipped this
			// far, so only a kernel with one (session 10's) showed it.
			connect(t, s)
			info := s.Info(10 * time.Second)
			if !strings.Contains(info.StderrTail, "int80 start") {
				t.Fatalf("the program did not run: %+v", info)
			}
			if strings.Contains(info.StderrTail, "=") || info.Signal != "SIGSYS" {
				t.Errorf("an i386 call was answered, want SIGSYS at the first one: signal %q, stderr:\n%s", info.Signal, info.StderrTail)
			}
		})
	}
}
