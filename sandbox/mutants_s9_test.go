package sandbox

import (
	"encoding/base32"
	"encoding/binary"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestExecLimitedSetsDataLast: RLIMIT_DATA is set after every other limit
// (once it is below what the Go runtime maps, setting the next one could
// fail for want of memory), so when several limits cannot be set the
// error names one of the others, whatever order the map gives
// (execlimited.go:45, the sort's comparison and subtraction mutated). Every
// limit here has soft > hard: prlimit refuses it and changes nothing, so
// the test process keeps its own limits and nothing is exec'd.
func TestExecLimitedSetsDataLast(t *testing.T) {
	bad := unix.Rlimit{Cur: 2, Max: 1}
	for range 64 {
		rl := map[int]unix.Rlimit{unix.RLIMIT_DATA: bad, unix.RLIMIT_NOFILE: bad, unix.RLIMIT_CORE: bad, unix.RLIMIT_FSIZE: bad}
		err := execLimited("/bin/true", []string{"true"}, nil, rl)
		var re *rlimitError
		if !errors.As(err, &re) {
			t.Fatalf("execLimited with unsettable limits: %v, want an *rlimitError", err)
		}
		if re.res == unix.RLIMIT_DATA {
			t.Fatalf("RLIMIT_DATA was set before the other limits (%v)", err)
		}
	}
}

// TestPasswdHomes: the homes of a passwd file are the sixth field of
// lines with all seven fields, absolute and existing as folders
// (homes.go:117 the open's error test inverted; :125 the field count's
// bound and test inverted).
func TestPasswdHomes(t *testing.T) {
	dir := t.TempDir()
	alice, bob := filepath.Join(dir, "alice"), filepath.Join(dir, "bob")
	for _, d := range []string{alice, bob} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	passwd := filepath.Join(dir, "passwd")
	lines := "alice:x:1000:1000:Alice:" + alice + ":/bin/bash\n" +
		"short:x:1001:1001:" + bob + ":/bin/sh\n" + // six fields: the shell read as the home
		"rel:x:1002:1002::home/rel:/bin/sh\n" +
		"gone:x:1003:1003::" + filepath.Join(dir, "gone") + ":/bin/sh\n" +
		"notdir:x:1004:1004::" + file + ":/bin/sh\n" +
		"bob:x:1005:1005::" + bob + "/:/usr/sbin/nologin\n"
	if err := os.WriteFile(passwd, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	want := []named{{alice, "alice"}, {bob, "bob"}}
	if got := passwdHomes(passwd); !slices.Equal(got, want) {
		t.Errorf("passwdHomes = %v, want %v", got, want)
	}
	if got := passwdHomes(filepath.Join(dir, "missing")); got != nil {
		t.Errorf("passwdHomes of a missing file = %v, want nil", got)
	}
}

// TestPrewarmBackends: Prewarm checks every isolating backend for auto,
// only the named one otherwise, and none for none or an unknown name
// (prewarm.go, the name comparison inverted: a named backend warmed the
// other one).
func TestPrewarmBackends(t *testing.T) {
	names := func(backend string) []string {
		var out []string
		for _, b := range prewarmBackends(Options{Backend: backend}) {
			out = append(out, b.name())
		}
		return out
	}
	auto := []string{BackendBwrap, BackendBuiltin}
	if os.Geteuid() == 0 {
		auto = []string{BackendBuiltin, BackendBwrap}
	}
	for _, tt := range []struct {
		backend string
		want    []string
	}{
		{BackendAuto, auto},
		{BackendBwrap, []string{BackendBwrap}},
		{BackendBuiltin, []string{BackendBuiltin}},
		{BackendNone, nil},
		{"docker", nil},
	} {
		if got := names(tt.backend); !slices.Equal(got, tt.want) {
			t.Errorf("prewarm for %s: %v, want %v", tt.backend, got, tt.want)
		}
	}
}

// TestStderrWatchDecodedLayers: a canary a server writes to stderr only
// in a layer no listed needle covers (base32) is found by the finder,
// also after another canary was found as written (stderr_watch.go:44,
// the test for "some canary still missing" inverted: the finder never
// ran). The finder stops once every canary is found.
func TestStderrWatchDecodedLayers(t *testing.T) {
	const a, b = "mcpvet-canary-0123456789abcdef", "mcpvet-canary-fedcba9876543210"
	w := newStderrWatch(map[string]string{"API_KEY": a, "DB_PASSWORD": b})
	if w.canaries != 2 {
		t.Fatalf("%d canaries counted, want 2", w.canaries)
	}
	w.Write([]byte("starting with key " + a + "\n"))
	w.Write([]byte("dsn token " + base32.StdEncoding.EncodeToString([]byte(b)) + "\n"))
	if got, want := w.names(), []string{"API_KEY", "DB_PASSWORD (base32)"}; !slices.Equal(got, want) {
		t.Errorf("names = %q, want %q", got, want)
	}
}

// TestNPMSDK: the SDK of an npm install is read from the marker package
// in its node_modules (sdk.go:27, the stat's error test inverted: every
// install was labelled with the first marker).
func TestNPMSDK(t *testing.T) {
	dir := t.TempDir()
	if sdk, ev := npmSDK(dir); sdk != "" || ev != "" {
		t.Errorf("an install without node_modules: %q, %q; want nothing", sdk, ev)
	}
	p := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"name":"@modelcontextprotocol/sdk"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if sdk, ev := npmSDK(dir); sdk != "typescript: official SDK" || ev != "the package depends on @modelcontextprotocol/sdk (npm)" {
		t.Errorf("npmSDK = %q, %q; want the official SDK", sdk, ev)
	}
}

// TestHTTPClientOnlyForRemote: a remote server's client is a copy of the
// transport's that follows no redirect; a local server has none
// (remote_client.go:10 the nil test inverted).
func TestHTTPClientOnlyForRemote(t *testing.T) {
	if c := (&Server{}).HTTPClient(); c != nil {
		t.Errorf("a local server has an HTTP client: %v", c)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	}))
	defer srv.Close()
	base := &http.Client{}
	c := (&Server{remote: &remoteTransport{client: base}}).HTTPClient()
	if c == nil || c == base {
		t.Fatalf("a remote server's client is %p (the transport's is %p), want a copy", c, base)
	}
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		t.Errorf("status %d: the client followed the redirect", resp.StatusCode)
	}
	if base.CheckRedirect != nil {
		t.Error("the transport's own client was changed")
	}
}

// TestTailBufferEdges: the stderr tail keeps the last cap bytes in order
// once its ring has wrapped, keeps nothing under a limit of 0 and counts
// what it dropped (tail.go :28:11, :55:16 x2, :66:11, :69:17).
func TestTailBufferEdges(t *testing.T) {
	b := newTailBuffer(4, -1)
	b.Write([]byte("abcd"))
	b.Write([]byte("ef"))
	if got := b.String(); got != "cdef" {
		t.Errorf("after a wrap: %q, want cdef", got)
	}
	z := newTailBuffer(8, 0)
	z.Write([]byte("abc"))
	if got, d := z.String(), z.Dropped(); got != "" || d != 3 {
		t.Errorf("limit 0: kept %q, dropped %d; want nothing kept, 3 dropped", got, d)
	}
	m := newTailBuffer(16, 5)
	m.Write([]byte("12345678"))
	if got, d := m.String(), m.Dropped(); got != "12345" || d != 3 {
		t.Errorf("limit 5: kept %q, dropped %d; want 12345, 3", got, d)
	}
}

// TestInitConfigEncodeRecords: what the builtin backend's C helper is
// told: a NUL even at a string's first byte is refused; /tmp is a shared
// 1777 tmpfs and every other tmpfs (HOME) is the server's own, 0700; a
// bind with a Source binds that source (/dev/null masking a file); no
// seccomp filter sends no 's' record (init.go :123:30, :142:8, :149:15,
// :179:18).
func TestInitConfigEncodeRecords(t *testing.T) {
	if _, err := (&initConfig{Root: "/r", Argv: []string{"\x00true"}}).encode(nil, 40); err == nil {
		t.Error("an argument starting with NUL was encoded")
	}
	c := &initConfig{Root: "/r", Argv: []string{"server"}, Tmpfs: []string{"/tmp", "/home/mcp"}, TmpfsSize: 1024, UID: 1234, GID: 1234,
		Binds: []initBind{{Path: "/etc/machine-id", Source: "/dev/null"}, {Path: "/usr", Dir: true}}}
	buf, err := c.encode(nil, 40)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"mode=1777,size=1024", "mode=0700,uid=1234,gid=1234,size=1024", "/dev/null"} {
		if !strings.Contains(string(buf), want) {
			t.Errorf("the encoded configuration lacks %q", want)
		}
	}
	tmp := "/tmp" + string(binary.LittleEndian.AppendUint32(nil, uint32(len("mode=1777,size=1024")))) + "mode=1777,size=1024"
	if strings.Count(string(buf), "mode=1777") != 1 || !strings.Contains(string(buf), tmp) {
		t.Error("/tmp is not the one shared 1777 tmpfs")
	}
	if strings.Contains(string(buf), "s\x01\x00\x00\x00\x00") {
		t.Error("an empty seccomp filter was sent as a record")
	}
}
