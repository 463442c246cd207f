package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/mcpvet/mcpvet/vocab"
)

// http.ProxyFromEnvironment reads the environment once per process, so the
// proxy tests run in a child with the proxy variables set.
func init() {
	fakes["s10z-proxy"] = runS10ZProxy
	fakes["s10z-cloexec"] = runS10ZCloexec
}

// runS10ZCloexec makes close_range fail with ENOSYS on this thread (a
// seccomp filter, as on a kernel before 5.11), opens a descriptor without
// close-on-exec, runs markInheritedCloseOnExec and prints which of fds 0-2
// and the new one are close-on-exec.
func runS10ZCloexec([]string) int {
	runtime.LockOSThread() // the filter holds for this thread only
	fd, err := unix.Open("/dev/null", unix.O_RDONLY, 0)
	if err != nil {
		fmt.Println(err)
		return 1
	}
	filter := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}, // seccomp_data.nr
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: 0, Jf: 1, K: unix.SYS_CLOSE_RANGE},
		{Code: unix.BPF_RET | unix.BPF_K, K: 0x00050000 | uint32(unix.ENOSYS)}, // SECCOMP_RET_ERRNO
		{Code: unix.BPF_RET | unix.BPF_K, K: 0x7fff0000},                       // SECCOMP_RET_ALLOW
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fmt.Println(err)
		return 1
	}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		fmt.Println(err)
		return 1
	}
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != unix.ENOSYS {
		fmt.Println("close_range not refused:", err)
		return 1
	}
	markInheritedCloseOnExec()
	for _, f := range []int{0, 1, 2, fd} {
		flags, err := unix.FcntlInt(uintptr(f), unix.F_GETFD, 0)
		if err != nil {
			fmt.Println(err)
			return 1
		}
		name := strconv.Itoa(f)
		if f == fd {
			name = "inherited"
		}
		fmt.Printf("%s cloexec=%v\n", name, flags&unix.FD_CLOEXEC != 0)
	}
	return 0
}

// TestS10ZCloseOnExecWithoutCloseRange: where close_range is missing,
// markInheritedCloseOnExec still marks every descriptor above stderr
// close-on-exec, through /proc/self/fd, and leaves 0-2 alone.
func TestS10ZCloseOnExecWithoutCloseRange(t *testing.T) {
	cmd := exec.Command(os.Args[0], fakeArg, "s10z-cloexec")
	cmd.Stdin = strings.NewReader("")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := []string{"0 cloexec=false", "1 cloexec=false", "2 cloexec=false", "inherited cloexec=true"}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSpace(string(out)), "\n")); diff != "" {
		t.Errorf("child output (-want +got):\n%s", diff)
	}
}

// runS10ZProxy prints proxyAddr of each of args[1:], then how an untrusted
// remote for http://mcp.example.com/mcp dials the proxy (args[0]) and a
// loopback address that is not the proxy.
func runS10ZProxy(args []string) int {
	for _, target := range args[1:] {
		fmt.Printf("proxy %s = %q\n", target, proxyAddr(target))
	}
	dial := guardedDial(&vocab.Plan{Source: "registry", URL: "http://mcp.example.com/mcp"}, false, nil)
	_, port, _ := net.SplitHostPort(args[0])
	for _, addr := range []string{args[0], net.JoinHostPort("127.0.0.2", port)} {
		conn, err := dial(context.Background(), "tcp", addr)
		switch {
		case err == nil:
			conn.Close()
			fmt.Printf("dial proxy=%v: connected\n", addr == args[0])
		case errors.Is(err, ErrPrivateAddress):
			fmt.Printf("dial proxy=%v: refused as private\n", addr == args[0])
		default:
			fmt.Printf("dial proxy=%v: %v\n", addr == args[0], err)
		}
	}
	return 0
}

// TestS10ZProxyExemptFromPrivateCheck: the proxy the environment sets for
// a remote's URL is host:port with the scheme's default port made
// explicit, and an untrusted remote may dial that proxy even on a private
// address, while every other private address stays refused.
func TestS10ZProxyExemptFromPrivateCheck(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	proxy := ln.Addr().String()
	cmd := exec.Command(os.Args[0], fakeArg, "s10z-proxy", proxy,
		"http://mcp.example.com/mcp", "https://mcp.example.com/mcp", "http://mcp.internal/mcp", "::bad")
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasSuffix(strings.ToLower(k), "_proxy") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "HTTP_PROXY=http://"+proxy, "HTTPS_PROXY=https://proxy.example", "NO_PROXY=mcp.internal")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := []string{
		fmt.Sprintf("proxy http://mcp.example.com/mcp = %q", proxy),
		`proxy https://mcp.example.com/mcp = "proxy.example:443"`,
		`proxy http://mcp.internal/mcp = ""`,
		`proxy ::bad = ""`,
		"dial proxy=true: connected",
		"dial proxy=false: refused as private",
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSpace(string(out)), "\n")); diff != "" {
		t.Errorf("child output (-want +got):\n%s", diff)
	}
}

// TestS10ZLastCapReadsKernel: lastCap is the highest capability the
// kernel knows, read from /proc/sys/kernel/cap_last_cap (63, the most a
// 64-bit set holds, only when that cannot be read).
func TestS10ZLastCapReadsKernel(t *testing.T) {
	data, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		t.Skipf("no cap_last_cap: %v", err)
	}
	want, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if got := lastCap(); got != want {
		t.Errorf("lastCap() = %d, want %d (the kernel's cap_last_cap)", got, want)
	}
}

// TestS10ZRefusePrivateAddresses: the connect-time check lets a public
// address through and refuses a private one or one it cannot parse.
func TestS10ZRefusePrivateAddresses(t *testing.T) {
	check := refusePrivate("an untrusted target")
	for _, tc := range []struct {
		address string
		refused bool
	}{
		{"93.184.216.34:443", false},
		{"[2606:2800:220:1:248:1893:25c8:1946]:443", false},
		{"127.0.0.1:80", true},
		{"10.1.2.3:80", true},
		{"not an address", true},
	} {
		err := check("tcp", tc.address, nil)
		if got := errors.Is(err, ErrPrivateAddress); got != tc.refused {
			t.Errorf("refusePrivate(%q) = %v, want refused %v", tc.address, err, tc.refused)
		}
	}
}

// TestS10ZOriginDefaultPort: an origin carries the URL's own port, and
// the scheme's default port only when the URL names none.
func TestS10ZOriginDefaultPort(t *testing.T) {
	for in, want := range map[string]string{
		"http://Example.COM/mcp":       "http://example.com:80",
		"HTTPS://example.com/mcp":      "https://example.com:443",
		"http://example.com:8080/mcp":  "http://example.com:8080",
		"https://example.com:8443/mcp": "https://example.com:8443",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := origin(u); got != want {
			t.Errorf("origin(%s) = %q, want %q", in, got, want)
		}
	}
}

func s10zRequest(t *testing.T, method, raw string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// TestS10ZRedirectPolicy: a remote follows at most 5 redirects; with
// headers it follows none to another origin (another port is another
// origin), records the refusal naming the request that was redirected
// (the last one, without its query), and follows those within the origin.
func TestS10ZRedirectPolicy(t *testing.T) {
	home := "https://mcp.example.com:8443"
	via := func(n int) []*http.Request {
		var out []*http.Request
		for i := range n {
			out = append(out, s10zRequest(t, http.MethodGet, "https://mcp.example.com:8443/hop"+strconv.Itoa(i)+"?token=secret"))
		}
		return out
	}
	t.Run("count", func(t *testing.T) {
		s := &Server{}
		policy := checkRedirect(s, home, false)
		next := s10zRequest(t, http.MethodGet, "https://elsewhere.example/next")
		for n := 1; n <= 4; n++ {
			if err := policy(next, via(n)); err != nil {
				t.Errorf("redirect after %d requests refused: %v", n, err)
			}
		}
		for _, n := range []int{5, 6} {
			if err := policy(next, via(n)); err == nil {
				t.Errorf("redirect after %d requests followed, want stopped after 5", n)
			}
		}
		if len(s.redirects) != 0 {
			t.Errorf("redirects noted without headers: %q", s.redirects)
		}
	})
	t.Run("same origin", func(t *testing.T) {
		s := &Server{}
		policy := checkRedirect(s, home, true)
		if err := policy(s10zRequest(t, http.MethodGet, "https://MCP.example.com:8443/other"), via(1)); err != nil {
			t.Errorf("same-origin redirect refused: %v", err)
		}
		if len(s.redirects) != 0 {
			t.Errorf("same-origin redirect noted: %q", s.redirects)
		}
	})
	t.Run("cross origin", func(t *testing.T) {
		s := &Server{}
		policy := checkRedirect(s, home, true)
		hops := via(2)
		hops[1] = s10zRequest(t, http.MethodPost, "https://mcp.example.com:8443/last?token=secret")
		err := policy(s10zRequest(t, http.MethodGet, "https://mcp.example.com:9443/stolen"), hops)
		if !errors.Is(err, errCrossOriginRedirect) {
			t.Fatalf("redirect to another port = %v, want %v", err, errCrossOriginRedirect)
		}
		want := []string{"POST https://mcp.example.com:8443/last redirected to another origin (https://mcp.example.com:9443); not followed, so the headers given for https://mcp.example.com:8443 stay there"}
		if diff := cmp.Diff(want, s.redirects); diff != "" {
			t.Errorf("redirects (-want +got):\n%s", diff)
		}
	})
}

// TestS10ZRedirectNotesCapped: a server keeps the first 8 refused
// redirects, so a redirect loop cannot grow its record without bound.
func TestS10ZRedirectNotesCapped(t *testing.T) {
	s := &Server{}
	var want []string
	for i := range 10 {
		msg := "redirect " + strconv.Itoa(i)
		s.noteRedirect(msg)
		if i < 8 {
			want = append(want, msg)
		}
	}
	if diff := cmp.Diff(want, s.redirects); diff != "" {
		t.Errorf("redirects (-want +got):\n%s", diff)
	}
}

// TestS10ZNoteHTTPFirstAndFirstError: a remote's HTTP outcome is its first
// answer, replaced once by the first error answer (status 400 or more)
// after a successful one; later answers change nothing.
func TestS10ZNoteHTTPFirstAndFirstError(t *testing.T) {
	resp := func(status int, ct string) *http.Response {
		return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {ct}}}
	}
	for _, tc := range []struct {
		name    string
		answers []*http.Response
		want    HTTPOutcome
	}{
		{"ok then ok", []*http.Response{resp(200, "application/json"), resp(202, "text/event-stream")}, HTTPOutcome{Status: 200, ContentType: "application/json"}},
		{"ok then 400", []*http.Response{resp(200, "application/json"), resp(400, "text/plain; charset=utf-8"), resp(500, "text/html")}, HTTPOutcome{Status: 400, ContentType: "text/plain"}},
		{"ok then 401", []*http.Response{resp(200, "application/json"), resp(401, "text/html")}, HTTPOutcome{Status: 401, ContentType: "text/html"}},
		{"399 then 404", []*http.Response{resp(399, "a/b"), resp(404, "c/d")}, HTTPOutcome{Status: 404, ContentType: "c/d"}},
		{"400 then 500", []*http.Response{resp(400, "text/plain"), resp(500, "text/html")}, HTTPOutcome{Status: 400, ContentType: "text/plain"}},
		{"401 then ok", []*http.Response{resp(401, "text/plain"), resp(200, "application/json")}, HTTPOutcome{Status: 401, ContentType: "text/plain"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{}
			for _, r := range tc.answers {
				s.noteHTTP(r)
			}
			if s.http == nil {
				t.Fatal("no HTTP outcome recorded")
			}
			if diff := cmp.Diff(tc.want, *s.http); diff != "" {
				t.Errorf("HTTP outcome (-want +got):\n%s", diff)
			}
		})
	}
}

// TestS10ZTokenBounds: names and versions may be exactly as long as their
// limit (214 for an npm name, 128 for a version) and no longer, and every
// ASCII letter and digit, first and last of each range included, is
// alphanumeric while the bytes next to those ranges are not.
func TestS10ZTokenBounds(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
		f    func(string) bool
		in   string
	}{
		{"npm name of 214", true, validNPMName, strings.Repeat("a", 214)},
		{"npm name of 215", false, validNPMName, strings.Repeat("a", 215)},
		{"scoped npm name of 214", true, validNPMName, "@s/" + strings.Repeat("a", 211)},
		{"scoped npm name of 215", false, validNPMName, "@s/" + strings.Repeat("a", 212)},
		{"version of 128", true, validVersion, "1.0.0-" + strings.Repeat("a", 122)},
		{"version of 129", false, validVersion, "1.0.0-" + strings.Repeat("a", 123)},
		{"https registry", true, validHTTPURL, "https://registry.example/npm/"},
		{"http registry", true, validHTTPURL, "http://registry.example/"},
		{"ftp registry", false, validHTTPURL, "ftp://registry.example/"},
		{"registry with credentials", false, validHTTPURL, "https://u:p@registry.example/"},
	} {
		if got := tc.f(tc.in); got != tc.ok {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.ok)
		}
	}
	for c := range 128 {
		want := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if got := isAlnum(byte(c)); got != want {
			t.Errorf("isAlnum(%q) = %v, want %v", rune(c), got, want)
		}
	}
	for _, v := range []string{"Zeta", "alpha-Z", "1.0.0-rc.z", "A1"} {
		if !validVersion(v) {
			t.Errorf("validVersion(%q) = false, want true", v)
		}
	}
}

// TestS10ZNPMErrorNamesTheMissingDependency: an npm 404 about a
// dependency is install_failed naming the dependency; a 404 that names
// nothing falls back to npm's own error.
func TestS10ZNPMErrorNamesTheMissingDependency(t *testing.T) {
	failed := errors.New("exit status 1")
	for _, tc := range []struct {
		name, out string
		want      LaunchError
	}{
		{"dependency", "npm error code E404\nnpm error 404 Not Found - GET http://127.0.0.1:4873/left-pad/-/left-pad-1.3.0.tgz - Not found\n",
			LaunchError{Status: vocab.StatusInstallFailed, Detail: "npm install mcpvet-echo@1.0.0: dependency left-pad not found in the registry"}},
		{"package", "npm error code E404\nnpm error 404 Not Found - GET http://127.0.0.1:4873/mcpvet-echo - Not found\n",
			LaunchError{Status: vocab.StatusPackageNotFound, Detail: "npm package mcpvet-echo not found: the registry answered 404 for it"}},
		{"no name", "npm error code E404\nnpm error 404 Not Found\n",
			LaunchError{Status: vocab.StatusInstallFailed, Detail: "npm install mcpvet-echo@1.0.0: exit status 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var le *LaunchError
			if !errors.As(npmError(context.Background(), "mcpvet-echo", "1.0.0", tc.out, failed), &le) {
				t.Fatal("not a LaunchError")
			}
			got := LaunchError{Status: le.Status, Detail: le.Detail}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("npmError (-want +got):\n%s", diff)
			}
		})
	}
}

// TestS10ZNPMDefaultRegistryAndRuntimeArgs: a pinned version installed
// from the default registry (no RegistryBaseURL) is reused from its own
// cache folder without asking any registry, and npx's -y and --yes are
// dropped silently while any other runtime argument is named in a warning.
func TestS10ZNPMDefaultRegistryAndRuntimeArgs(t *testing.T) {
	npmEnv(t)
	reg := newNPMRegistry(t)
	reg.add(t, "mcpvet-echo", "1.0.0", "server.js", map[string]string{"server.js": readTestdata(t, "echo-server.js")})
	cache := t.TempDir()
	run := func(base string) Info {
		t.Helper()
		forgetProcessMemos()
		t.Cleanup(forgetProcessMemos)
		plan := &vocab.Plan{Transport: vocab.TransportStdio, Package: &vocab.Package{RegistryType: "npm", RegistryBaseURL: base,
			Identifier: "mcpvet-echo", Version: "1.0.0", RuntimeArgs: []string{"-y", "--yes", "--node-options=--inspect"}}}
		opts := testOptions(BackendNone)
		opts.CacheDir = cache
		s, err := Launch(context.Background(), plan, opts)
		if err != nil {
			t.Fatalf("launch from %q: %v", base, err)
		}
		defer s.Close()
		return s.Info(0)
	}
	info := run(reg.URL)
	var ignored []string
	for _, w := range info.Warnings {
		if strings.HasPrefix(w, "npx runtime argument") {
			ignored = append(ignored, w)
		}
	}
	want := []string{`npx runtime argument "--node-options=--inspect" ignored: the package is run with node directly`}
	if diff := cmp.Diff(want, ignored); diff != "" {
		t.Errorf("runtime argument warnings (-want +got):\n%s", diff)
	}
	// Move the install to the default registry's key; the registry goes.
	installs, _ := filepath.Glob(filepath.Join(cache, "npm", "mcpvet-echo@1.0.0@*"))
	if len(installs) != 1 {
		t.Fatalf("installs from the test registry: %q, want one", installs)
	}
	if err := os.Rename(installs[0], filepath.Join(cache, "npm", "mcpvet-echo@1.0.0")); err != nil {
		t.Fatal(err)
	}
	before := reg.metas.Load()
	reg.Close()
	info = run("")
	if info.InstalledVersion != "1.0.0" {
		t.Errorf("InstalledVersion = %q, want 1.0.0", info.InstalledVersion)
	}
	if got := reg.metas.Load() - before; got != 0 {
		t.Errorf("%d metadata requests for a pinned cached install, want 0", got)
	}
}

// TestS10ZRunToolCancelKillsTheGroup: cancelling an installer kills its
// whole process group, so nothing it started outlives the install.
func TestS10ZRunToolCancelKillsTheGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := runTool(ctx, dir, nil, "/bin/sh", "-c", `sleep 1000 & echo $! > "$0.tmp" && mv "$0.tmp" "$0"; wait`, pidFile)
		done <- err
	}()
	var pid int
	for pid == 0 {
		if data, err := os.ReadFile(pidFile); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		}
		select {
		case err := <-done:
			t.Fatalf("runTool returned before it was cancelled: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err == nil {
		t.Error("cancelled runTool returned no error")
	}
	// SIGKILL is delivered asynchronously: give the child a moment to go.
	for i := 0; i < 100 && running(pid); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if running(pid) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the installer's child %d outlived the cancelled install", pid)
	}
}

// TestS10ZRunningAndFirstChild: running is false for a zombie and for a
// pid that is gone, and firstChild is the lowest pid among a process's
// children.
func TestS10ZRunningAndFirstChild(t *testing.T) {
	dir := t.TempDir()
	pids := filepath.Join(dir, "pids")
	sh := exec.Command("/bin/sh", "-c", `sleep 1000 & a=$!; sleep 1000 & b=$!; echo $a $b > "$0.tmp" && mv "$0.tmp" "$0"; wait`, pids)
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = syscall.Kill(-sh.Process.Pid, syscall.SIGKILL)
		_ = sh.Wait()
	}()
	var children []int
	for i := 0; i < 500 && len(children) < 2; i++ {
		data, err := os.ReadFile(pids)
		if err != nil {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		for f := range strings.FieldsSeq(string(data)) {
			n, _ := strconv.Atoi(f)
			children = append(children, n)
		}
	}
	if len(children) != 2 {
		t.Fatalf("children of the shell: %v", children)
	}
	if got, want := firstChild(sh.Process.Pid), min(children[0], children[1]); got != want {
		t.Errorf("firstChild = %d, want %d (the lower of %v)", got, want, children)
	}
	// The /proc scan, the way on kernels without children files, finds
	// the same lowest child.
	if got, want := childByScan(sh.Process.Pid), min(children[0], children[1]); got != want {
		t.Errorf("childByScan = %d, want %d (the lower of %v)", got, want, children)
	}
	if !running(sh.Process.Pid) {
		t.Error("running(the shell) = false")
	}

	// A child that exited and was not waited for is a zombie.
	zombie := exec.Command("/bin/true")
	if err := zombie.Start(); err != nil {
		t.Fatal(err)
	}
	pid := zombie.Process.Pid
	for i := 0; i < 500; i++ {
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil && strings.Contains(string(stat), ") Z ") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if running(pid) {
		t.Errorf("running(zombie %d) = true", pid)
	}
	_ = zombie.Wait()
	if running(pid) {
		t.Errorf("running(reaped %d) = true", pid)
	}
	// A process that is gone has no children (found by scanning /proc,
	// as it has no children files).
	if got := firstChild(pid); got != 0 {
		t.Errorf("firstChild(reaped %d) = %d, want 0", pid, got)
	}
}
