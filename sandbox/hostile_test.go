package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/internal/testenv"
	"github.com/mcpvet/mcpvet/internal/testfixture"
	"github.com/mcpvet/mcpvet/vocab"
)

var hostileFixtures = []string{
	"hostile-readfile", "hostile-write", "hostile-connect", "hostile-forkbomb", "hostile-alloc",
	"hostile-ignoreterm", "hostile-daemon", "hostile-stdoutflood", "hostile-hugeline", "hostile-env",
}

// hostileHost is what the tests plant on the host for the fixtures to go
// after.
type hostileHost struct {
	tmpSecret, homeSecret, dbSecret string // paths
	secrets                         []string
	writeDirs                       []string // host folders that must stay untouched
	listener                        net.Listener
	accepted                        atomic.Int32
}

func plantHost(t *testing.T) *hostileHost {
	h := &hostileHost{}
	mark := newRunID()
	plant := func(dir, name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(p) })
		h.secrets = append(h.secrets, content)
		return p
	}
	h.tmpSecret = plant("/tmp", "mcpvet-hostile-"+mark, "SECRET-IN-HOST-TMP-"+mark)
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	h.homeSecret = plant(home, ".mcpvet-hostile-"+mark, "SECRET-IN-HOST-HOME-"+mark)
	dbDir := t.TempDir() // stands for the results database and other servers' folders
	h.dbSecret = plant(dbDir, "results.db", "SECRET-IN-RESULTS-DB-"+mark)
	h.writeDirs = []string{dbDir, home, "/tmp"}
	t.Setenv("MCPVET_HOST_SECRET", "SECRET-IN-SCANNER-ENV-"+mark)
	h.secrets = append(h.secrets, "SECRET-IN-SCANNER-ENV-"+mark)

	h.listener, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.listener.Close() })
	go func() {
		for {
			c, err := h.listener.Accept()
			if err != nil {
				return
			}
			h.accepted.Add(1)
			c.Close()
		}
	}()
	return h
}

// heapPeak samples HeapInuse until stop is called and returns the peak
// growth over the baseline.
func heapPeak() (stop func() uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > base && ms.HeapInuse-base > peak.Load() {
				peak.Store(ms.HeapInuse - base)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak.Load()
	}
}

// liveHeap returns the heap a forced collection marked live
// (/gc/heap/live:bytes after runtime.GC): retained memory, not garbage
// waiting for the collector.
func liveHeap() uint64 {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	runtime.GC()
	metrics.Read(sample)
	return sample[0].Value.Uint64()
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name})
	if err != nil {
		t.Fatalf("CallTool %s: %v", name, err)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// drain reads the connection until it ends.
func drain(t *testing.T, conn mcp.Connection) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		if _, err := conn.Read(ctx); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Errorf("Read = %v, want io.EOF", err)
			}
			return
		}
	}
}

func TestHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("hostile fixtures take a minute")
	}
	var backends []string
	for _, b := range testBackends(t) {
		if b != BackendNone {
			backends = append(backends, b)
		}
	}
	if len(backends) == 0 {
		testenv.Need(t, "no isolating backend works here")
	}
	bins := testfixture.Build(t, hostileFixtures...)
	host := plantHost(t)
	addr := host.listener.Addr().String()

	type run struct {
		s      *Server
		marker string
		output string // tool output, when the case produced some
	}
	cases := []struct {
		fixture string
		args    []string
		limits  Limits
		secrets []string // plan secrets
		check   func(t *testing.T, r *run, info Info)
	}{
		{fixture: "hostile-readfile", args: []string{host.tmpSecret, host.homeSecret, host.dbSecret},
			check: func(t *testing.T, r *run, info Info) {
				cs := clientSession(t, r.s)
				r.output = callTool(t, cs, "report")
				cs.Close()
				for _, p := range []string{host.tmpSecret, host.homeSecret, host.dbSecret, "/etc/shadow"} {
					if !strings.Contains(r.output, p+": denied") {
						t.Errorf("report does not show %s denied:\n%s", p, r.output)
					}
				}
			}},
		{fixture: "hostile-write", args: host.writeDirs,
			check: func(t *testing.T, r *run, info Info) {
				cs := clientSession(t, r.s)
				r.output = callTool(t, cs, "report")
				cs.Close()
				// The sandbox's own /tmp and HOME are writable: that shows
				// the fixture really tried.
				for _, want := range []string{"/tmp: wrote", sandboxHome + ": wrote", "/usr: denied", "/: denied"} {
					if !strings.Contains(r.output, want) {
						t.Errorf("report lacks %q:\n%s", want, r.output)
					}
				}
				for _, d := range append(host.writeDirs, "/", "/usr", "/etc") {
					if m, _ := filepath.Glob(filepath.Join(d, "hostile-write-*")); len(m) > 0 {
						t.Errorf("the fixture wrote %v on the host", m)
					}
				}
			}},
		{fixture: "hostile-connect", args: []string{addr},
			check: func(t *testing.T, r *run, info Info) {
				cs := clientSession(t, r.s)
				r.output = callTool(t, cs, "report")
				cs.Close()
				if !strings.Contains(r.output, addr+": failed") {
					t.Errorf("report = %q, want the dial to fail", r.output)
				}
				if n := host.accepted.Load(); n != 0 {
					t.Errorf("the host listener accepted %d connections", n)
				}
			}},
		{fixture: "hostile-forkbomb", limits: Limits{Processes: 64},
			check: func(t *testing.T, r *run, info Info) {
				connect(t, r.s)
				if info := r.s.Info(30 * time.Second); info.LimitExceeded != LimitProcesses {
					t.Errorf("LimitExceeded = %q, want %q", info.LimitExceeded, LimitProcesses)
				}
			}},
		{fixture: "hostile-alloc", limits: Limits{MemoryBytes: 128 << 20},
			check: func(t *testing.T, r *run, info Info) {
				connect(t, r.s)
				if info := r.s.Info(30 * time.Second); info.LimitExceeded != LimitMemory {
					t.Errorf("LimitExceeded = %q, want %q", info.LimitExceeded, LimitMemory)
				}
			}},
		{fixture: "hostile-ignoreterm",
			check: func(t *testing.T, r *run, info Info) {
				cs := clientSession(t, r.s)
				start := time.Now()
				cs.Close()
				if d := time.Since(start); d > 10*time.Second { // two grace periods and the kill, with room for a loaded machine
					t.Errorf("closing took %v", d)
				}
				if info := r.s.Info(5 * time.Second); info.Signal != "SIGKILL" {
					t.Errorf("Signal = %q, want SIGKILL", info.Signal)
				}
			}},
		{fixture: "hostile-daemon",
			check: func(t *testing.T, r *run, info Info) {
				cs := clientSession(t, r.s)
				deadline := time.Now().Add(10 * time.Second)
				for len(markedProcesses(r.marker)) < 2 && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if n := len(markedProcesses(r.marker)); n < 2 {
					t.Errorf("the daemon did not start (%d processes)", n)
				}
				cs.Close()
			}},
		{fixture: "hostile-stdoutflood",
			check: func(t *testing.T, r *run, info Info) {
				// What the reader retains, measured while the flood is
				// being read: the test stops reading at a few points, so
				// the reader blocks on its full queue and stops
				// allocating, and takes the live heap after a collection.
				// A peak of total heap during the flood measured garbage
				// and when the collector ran (66-79 MiB on a loaded
				// machine). The reader may hold its queue and one message
				// of up to DefaultMessageBytes (16 MiB); the flood's lines
				// are 1 KiB, so anything near that bound means it keeps
				// what it has read.
				base := liveHeap()
				conn := connect(t, r.s)
				var retained uint64
				measure := func() {
					time.Sleep(50 * time.Millisecond) // let the reader fill its queue and block
					if l := liveHeap(); l > base && l-base > retained {
						retained = l - base
					}
				}
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				n := 0
				for ; ; n++ {
					if n%16384 == 1000 { // 4 points in the ~65,000 lines the 64 MiB limit lets through
						measure()
					}
					if _, err := conn.Read(ctx); err != nil {
						if !errors.Is(err, io.EOF) {
							t.Errorf("Read = %v, want io.EOF", err)
						}
						break
					}
				}
				measure() // and what is left once the flood is over
				if info := r.s.Info(10 * time.Second); info.LimitExceeded != LimitStdoutBytes {
					t.Errorf("LimitExceeded = %q, want %q", info.LimitExceeded, LimitStdoutBytes)
				}
				if retained > DefaultMessageBytes {
					t.Errorf("the reader retained %.1f MiB while reading the flood (bound %d MiB)", float64(retained)/(1<<20), DefaultMessageBytes>>20)
				}
				t.Logf("heap retained while reading %d messages of a 1 GB stdout flood: %.2f MiB", n, float64(retained)/(1<<20))
			}},
		{fixture: "hostile-hugeline",
			check: func(t *testing.T, r *run, info Info) {
				// A collector that runs often keeps garbage (the buffers a
				// growing read leaves behind) out of the peak, so the peak
				// measures what the reader holds, not when GC last ran.
				defer debug.SetGCPercent(debug.SetGCPercent(10))
				stop := heapPeak()
				drain(t, connect(t, r.s))
				peak := stop()
				if info := r.s.Info(10 * time.Second); info.LimitExceeded != LimitMessageSize {
					t.Errorf("LimitExceeded = %q, want %q", info.LimitExceeded, LimitMessageSize)
				}
				if peak > 64<<20 {
					t.Errorf("scanner heap grew by %d MiB reading the line", peak>>20)
				}
				t.Logf("heap growth while reading a 100 MB line: %.1f MiB", float64(peak)/(1<<20))
			}},
		{fixture: "hostile-env", secrets: []string{"API_KEY"},
			check: func(t *testing.T, r *run, info Info) {
				cs := clientSession(t, r.s)
				r.output = callTool(t, cs, "env")
				cs.Close()
				canary := r.s.Info(0).Canaries["API_KEY"]
				if !strings.Contains(r.output, "API_KEY="+canary) {
					t.Errorf("env lacks the canary %s:\n%s", canary, r.output)
				}
				for line := range strings.SplitSeq(r.output, "\n") {
					k, _, _ := strings.Cut(line, "=")
					switch k {
					case "PATH", "HOME", "LANG", "API_KEY", "PWD":
					default:
						t.Errorf("unexpected variable in the server's environment: %q", line)
					}
				}
			}},
	}
	for _, backend := range backends {
		for _, tc := range cases {
			t.Run(backend+"/"+tc.fixture, func(t *testing.T) {
				marker := fmt.Sprintf("mcpvet-test-marker-%s", newRunID())
				plan := &vocab.Plan{Transport: vocab.TransportStdio, Command: bins[tc.fixture], Args: append(append([]string{}, tc.args...), marker), Secrets: tc.secrets}
				opts := testOptions(backend)
				opts.CacheDir = t.TempDir()
				opts.TerminateGrace = 500 * time.Millisecond
				opts.Limits = tc.limits
				s, err := Launch(context.Background(), plan, opts)
				if err != nil {
					t.Fatalf("Launch: %v", err)
				}
				r := &run{s: s, marker: marker}
				tc.check(t, r, s.Info(0))
				if err := s.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
				info := s.Info(0)
				all := r.output + info.StderrTail + info.StdoutNoise
				for _, secret := range host.secrets {
					if strings.Contains(all, secret) {
						t.Errorf("secret %q leaked into the server's output", secret)
					}
				}
				assertNoProcess(t, marker)
				// A normal server still works after the hostile one.
				plan, marker = fakePlan(t, "mcp")
				ok := launch(t, plan, testOptions(backend), marker)
				cs := clientSession(t, ok)
				if got := callEcho(t, cs, "after "+tc.fixture); got != "after "+tc.fixture {
					t.Errorf("echo after %s = %q", tc.fixture, got)
				}
				cs.Close()
			})
		}
	}
}
