package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpvet/mcpvet/internal/jsonscan"
)

func init() {
	// s10r-availability stands for another mcpvet process: it asks for
	// the verdict of the record named by its argument with a check that
	// prints "checked" and fails (so it saves nothing).
	fakes["s10r-availability"] = func(args []string) int {
		var a availability
		_ = a.get(args[0], func() error {
			fmt.Println("checked")
			return errors.New("not saved")
		})
		return 0
	}
}

// s10rReadStdout runs readStdout over out on a server that was never
// started (its limit kills record the limit and kill nothing) and returns
// every message it queued, the limit recorded and the noise kept.
func s10rReadStdout(t *testing.T, lim Limits, out string) (msgs []jsonrpc.Message, limit, noise string) {
	t.Helper()
	s := &Server{opts: Options{Limits: lim.withDefaults()}}
	s.initChannels()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.readStdout(strings.NewReader(out))
	}()
	// Everything is gathered before anything is checked: a message must
	// stay intact while the reader goes on with the next lines.
	for m := range s.msgs {
		msgs = append(msgs, m)
	}
	<-done
	s.mu.Lock()
	defer s.mu.Unlock()
	return msgs, s.limit, string(s.noise)
}

// s10rResponse is a response line (without newline) of exactly total
// bytes whose result is a string and whose id has idLen characters; the
// part outside the result is len(line) - (len of the result's literal).
func s10rResponse(idLen, total int) []byte {
	head := `{"jsonrpc":"2.0","id":"` + strings.Repeat("i", idLen) + `","result":"`
	tail := `"}`
	return []byte(head + strings.Repeat("x", total-len(head)-len(tail)) + tail)
}

// decodeAll decodes each line with jsonrpc.DecodeMessage, the reference
// for what the reader must deliver.
func decodeAll(t *testing.T, lines ...string) []jsonrpc.Message {
	t.Helper()
	var out []jsonrpc.Message
	for _, l := range lines {
		m, err := jsonrpc.DecodeMessage([]byte(l))
		if err != nil {
			t.Fatalf("decoding %.60s: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// encodeAll encodes msgs back to lines, for comparing and showing them
// (cmp cannot look into jsonrpc.ID).
func encodeAll(t *testing.T, msgs []jsonrpc.Message) []string {
	t.Helper()
	var out []string
	for _, m := range msgs {
		b, err := jsonrpc.EncodeMessage(m)
		if err != nil {
			t.Fatalf("encoding %T: %v", m, err)
		}
		out = append(out, string(b))
	}
	return out
}

// TestS10RWriteEndsWithContext: a write blocked by a server that does not
// read its stdin ends when ctx is done, with ctx's error (stdio.go:83
// `err != nil && ctx.Err() != nil`: either test negated returned the
// deadline's "writing to server stdin: i/o timeout" instead, which callers
// take for a broken server rather than their own cancellation). The
// "silent" fake never reads; a 1 MiB message does not fit in the pipe.
func TestS10RWriteEndsWithContext(t *testing.T) {
	plan, marker := fakePlan(t, "silent")
	s := launch(t, plan, testOptions(BackendNone), marker)
	conn := connect(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	id, _ := jsonrpc.MakeID(float64(1))
	req := &jsonrpc.Request{ID: id, Method: "ping", Params: json.RawMessage(fmt.Sprintf("%q", strings.Repeat("p", 1<<20)))}
	if err := conn.Write(ctx, req); !errors.Is(err, context.Canceled) {
		t.Fatalf("Write with a cancelled context to a server that does not read = %v, want %v", err, context.Canceled)
	}
}

// TestS10RLongLines: a line longer than the reader's 64 KiB buffer is
// gathered from its pieces and delivered whole, and the next line is read
// on its own (stdio.go:140 `pieces == nil` negated: only the last piece of
// a long line was kept, and the pieces of one line leaked into the next).
func TestS10RLongLines(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("y", 200<<10) + `"}}`
	short := `{"jsonrpc":"2.0","id":2,"result":{}}`
	msgs, limit, noise := s10rReadStdout(t, Limits{}, long+"\n"+short+"\n")
	if diff := cmp.Diff(encodeAll(t, decodeAll(t, long, short)), encodeAll(t, msgs)); diff != "" || limit != "" || noise != "" {
		t.Errorf("messages (-want +got):\n%.2000s\nlimit %q, noise %.100q", diff, limit, noise)
	}
}

// TestS10RBatches: a JSON-RPC batch (allowed by the 2025-03-26 revision)
// is delivered as its messages, in order; a batch with a member that is
// not a message, and an empty one, are stdout noise as a whole
// (stdio.go:184 `json.Unmarshal(...) == nil` and `len(raws) > 0` negated,
// :187 `err != nil` negated: a valid batch became noise).
func TestS10RBatches(t *testing.T) {
	resp := `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`
	note := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`
	req := `{"jsonrpc":"2.0","id":"s-1","method":"roots/list"}`
	tests := []struct {
		name, line string
		want       []jsonrpc.Message
		noise      string
	}{
		{name: "batch", line: "[" + resp + ", " + note + "," + req + "]", want: decodeAll(t, resp, note, req)},
		{name: "batch of one", line: "[" + note + "]", want: decodeAll(t, note)},
		{name: "a member that is no message", line: "[" + resp + `,{"id":2}]`, noise: "[" + resp + `,{"id":2}]`},
		{name: "a first member that is no message", line: `[{"id":2},` + resp + "]", noise: `[{"id":2},` + resp + "]"},
		{name: "empty batch", line: "[]", noise: "[]"},
		{name: "not JSON", line: "[INFO] starting", noise: "[INFO] starting"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			after := decodeAll(t, resp)
			msgs, limit, noise := s10rReadStdout(t, Limits{}, tc.line+"\n"+resp+"\n")
			if diff := cmp.Diff(encodeAll(t, append(tc.want, after...)), encodeAll(t, msgs)); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			if noise != tc.noise || limit != "" {
				t.Errorf("noise %q, limit %q; want noise %q and no limit", noise, limit, tc.noise)
			}
		})
	}
}

// TestS10RDepthLimit: a line nested exactly jsonscan.MaxDepth (10,000)
// levels, which Go's decoder and so the SDK still take, is ordinary
// stdout noise; one level more is the message depth limit, which ends
// the reading (stdio.go:200 `> MaxDepth` → `>=`: the deepest line a
// client takes was reported as the limit and killed its server).
func TestS10RDepthLimit(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	obj := func(n int) string { return strings.Repeat(`{"a":`, n-1) + "{}" + strings.Repeat("}", n-1) }
	next := `{"jsonrpc":"2.0","id":1,"result":{}}`
	tests := []struct {
		name, line string
		limit      string
	}{
		{"arrays at the depth", nest(jsonscan.MaxDepth), ""},
		{"arrays past the depth", nest(jsonscan.MaxDepth + 1), LimitMessageDepth},
		{"objects at the depth", obj(jsonscan.MaxDepth), ""},
		{"objects past the depth", obj(jsonscan.MaxDepth + 1), LimitMessageDepth},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msgs, limit, noise := s10rReadStdout(t, Limits{}, tc.line+"\n"+next+"\n")
			if limit != tc.limit {
				t.Fatalf("limit %q, want %q", limit, tc.limit)
			}
			if tc.limit != "" {
				if len(msgs) != 0 || noise != "" {
					t.Errorf("past the limit: %d messages, noise %.40q; want the reading ended", len(msgs), noise)
				}
				return
			}
			if !strings.HasPrefix(tc.line, noise) || len(noise) != stdoutNoiseBytes {
				t.Errorf("noise %.40q (%d bytes), want the line's first %d bytes", noise, len(noise), stdoutNoiseBytes)
			}
			if diff := cmp.Diff(encodeAll(t, decodeAll(t, next)), encodeAll(t, msgs)); diff != "" {
				t.Errorf("the line after (-want +got):\n%s", diff)
			}
		})
	}
}

// TestS10RResponseAtReuseSize: a response line of exactly maxReusedLine
// bytes (its newline included) leaves a buffer the reader keeps for the
// next line, so it must not be decoded in place: the next line would
// overwrite its result before the client read it (stdio.go:223
// `largeLine = maxReusedLine + 1` → `- 1`: that response's result was
// the next line's bytes).
func TestS10RResponseAtReuseSize(t *testing.T) {
	first := string(s10rResponse(8, maxReusedLine-1))
	next := `{"jsonrpc":"2.0","id":2,"result":{"text":"` + strings.Repeat("z", 4000) + `"}}`
	msgs, limit, noise := s10rReadStdout(t, Limits{}, first+"\n"+next+"\n")
	if len(msgs) != 2 || limit != "" || noise != "" {
		t.Fatalf("%d messages, limit %q, noise %.60q; want 2", len(msgs), limit, noise)
	}
	if !reflect.DeepEqual(msgs, decodeAll(t, first, next)) {
		r := msgs[0].(*jsonrpc.Response)
		t.Errorf("the first response changed after the next line was read: result begins %.60q", r.Result)
	}
}

// TestS10RDecodeLargeBounds: decodeLarge decodes in place from largeLine
// bytes on (stdio.go:233 `len(line) < largeLine` → `<=`: a line of
// exactly largeLine bytes was copied) while the part outside the result
// is at most 64 KiB (:243 `> 64<<10` → `>=`: one of exactly 64 KiB was
// copied); below or past those it leaves the line to DecodeMessage.
func TestS10RDecodeLargeBounds(t *testing.T) {
	// The part outside the result: `{"jsonrpc":"2.0","id":"` (23), the
	// id, `","result":` (11) and `}`.
	outside := func(idLen int) int { return 23 + idLen + 11 + 1 }
	id64k := 64<<10 - outside(0)
	tests := []struct {
		name          string
		idLen, total  int
		inPlace       bool
		outsideResult int
	}{
		{name: "one byte below largeLine", idLen: 8, total: largeLine - 1},
		{name: "largeLine", idLen: 8, total: largeLine, inPlace: true},
		{name: "64 KiB outside the result", idLen: id64k, total: largeLine + 100, inPlace: true, outsideResult: 64 << 10},
		{name: "64 KiB and one byte outside the result", idLen: id64k + 1, total: largeLine + 100, outsideResult: 64<<10 + 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			line := s10rResponse(tc.idLen, tc.total)
			if len(line) != tc.total || tc.outsideResult != 0 && outside(tc.idLen) != tc.outsideResult {
				t.Fatalf("test line: %d bytes, %d outside the result", len(line), outside(tc.idLen))
			}
			m := decodeLarge(line)
			if !tc.inPlace {
				if m != nil {
					t.Errorf("decodeLarge = %T, want nil (left to DecodeMessage)", m)
				}
				return
			}
			if m == nil {
				t.Fatal("decodeLarge = nil, want the response decoded in place")
			}
			if !reflect.DeepEqual(m, decodeAll(t, string(line))[0]) {
				t.Errorf("decodeLarge differs from DecodeMessage")
			}
			if r := m.(*jsonrpc.Response); &r.Result[0] != &line[bytes.Index(line, []byte(`"result":`))+9] {
				t.Errorf("the result was copied")
			}
		})
	}
}

// TestS10RDecodeLargeAllocates: decoding a large response in place
// allocates far less than the line (stdio.go:246 the capacity of the
// line without its result as `len(line)+(to-from)+1`: every large
// response allocated a scratch buffer of twice its size, the kind of
// peak issue 22 item 9 removed).
func TestS10RDecodeLargeAllocates(t *testing.T) {
	line := s10rResponse(8, 8<<20)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := decodeLarge(line)
	runtime.ReadMemStats(&after)
	if m == nil {
		t.Fatal("decodeLarge = nil")
	}
	n := after.TotalAlloc - before.TotalAlloc
	t.Logf("decodeLarge of a %d-byte line allocated %d bytes", len(line), n)
	if n > uint64(len(line))/4 {
		t.Errorf("decodeLarge of a %d-byte line allocated %d bytes, want less than a quarter of the line", len(line), n)
	}
}

// s10rRecord points the availability state at a fake boot id and returns
// the record file of this binary in a fresh cache folder.
func s10rRecord(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	boot := filepath.Join(dir, "boot_id")
	if err := os.WriteFile(boot, []byte("boot-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := bootIDFile
	bootIDFile = boot
	t.Cleanup(func() { bootIDFile = old })
	return availabilityRecord(filepath.Join(dir, "cache"), BackendBwrap, false, thisBinary())
}

// TestS10RAvailabilityDependsOnBwrapAndSettings: a saved pass is not used
// once bwrap was replaced (availability.go:179 `err == nil` negated: the
// bwrap found on PATH was never part of the record) or a kernel setting
// that allows namespaces changed (:188 `err == nil` negated: no setting
// was recorded), and fromRecord tells a verdict read from the record from
// one this process checked (:99, which TestPrewarmSharesTheCheck relies on).
func TestS10RAvailabilityDependsOnBwrapAndSettings(t *testing.T) {
	file := s10rRecord(t)
	tools := fakeToolDir(t)
	bwrap := filepath.Join(tools, "bwrap")
	writeScript(t, bwrap, "exit 0\n")
	setting := filepath.Join(t.TempDir(), "max_user_namespaces")
	if err := os.WriteFile(setting, []byte("63000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	oldFiles := namespaceFiles
	namespaceFiles = []string{setting}
	t.Cleanup(func() { namespaceFiles = oldFiles })

	runs := 0
	fail := func() error { runs++; return errors.New("no namespaces") }
	save := func() {
		t.Helper()
		var a availability
		if err := a.get(file, func() error { return nil }); err != nil || a.fromRecord() {
			t.Fatalf("saving a pass: err %v, fromRecord %v", err, a.fromRecord())
		}
	}

	save()
	var same availability
	if err := same.get(file, fail); err != nil || runs != 0 || !same.fromRecord() {
		t.Fatalf("unchanged: err %v, %d checks, fromRecord %v; want the saved pass", err, runs, same.fromRecord())
	}

	writeScript(t, bwrap, "# bubblewrap 0.11\nexit 0\n")
	var newBwrap availability
	if err := newBwrap.get(file, fail); err == nil || runs != 1 || newBwrap.fromRecord() {
		t.Errorf("bwrap replaced: err %v, %d checks, fromRecord %v; want a new check", err, runs, newBwrap.fromRecord())
	}

	save()
	if err := os.WriteFile(setting, []byte("0\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runs = 0
	var newSetting availability
	if err := newSetting.get(file, fail); err == nil || runs != 1 {
		t.Errorf("namespaces disabled: err %v, %d checks, want a new check", err, runs)
	}
}

// TestS10RAvailabilityPerNamespace: a pass saved by mcpvet in one network
// namespace is not used by mcpvet in another (availability.go:183
// `err == nil` negated: the namespaces were never part of the record, so
// a scan in a container took the host's pass). The other process is the
// test binary run again, once as it is and once in a new network
// namespace.
func TestS10RAvailabilityPerNamespace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a new network namespace needs root")
	}
	if b, err := os.ReadFile(bootIDFile); err != nil || len(bytes.TrimSpace(b)) == 0 {
		t.Skipf("no boot id: %v", err)
	}
	file := availabilityRecord(t.TempDir(), BackendBwrap, false, thisBinary())
	var a availability
	if err := a.get(file, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("no record saved: %v", err)
	}
	exe, _ := os.Executable()
	other := func(flags uintptr) string {
		t.Helper()
		cmd := exec.Command(exe, fakeArg, "s10r-availability", file)
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: flags}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("the other process (clone flags %#x): %v", flags, err)
		}
		return strings.TrimSpace(string(out))
	}
	if got := other(0); got != "" {
		t.Fatalf("a process in the same namespaces printed %q, want the saved pass taken", got)
	}
	if got := other(syscall.CLONE_NEWNET); got != "checked" {
		t.Errorf("a process in another network namespace printed %q, want a check of its own", got)
	}
}

// TestS10RAvailabilityRecordSize: a record is read up to 64 KiB, a larger
// file is no record (availability.go:213 `len(b) > 64<<10` → `>=`).
// The padding is whitespace, which JSON ignores.
func TestS10RAvailabilityRecordSize(t *testing.T) {
	file := s10rRecord(t)
	var a availability
	if err := a.get(file, func() error { return nil }); err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		size  int
		taken bool
	}{{64 << 10, true}, {64<<10 + 1, false}} {
		padded := append(bytes.Clone(saved), bytes.Repeat([]byte(" "), tc.size-len(saved))...)
		if err := os.WriteFile(file, padded, 0o600); err != nil {
			t.Fatal(err)
		}
		checked := false
		var b availability
		_ = b.get(file, func() error { checked = true; return errors.New("no namespaces") })
		if checked == tc.taken {
			t.Errorf("a %d-byte record: checked %v, want the record taken %v", tc.size, checked, tc.taken)
		}
	}
}
