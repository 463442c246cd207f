package source

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestReadSnapshotServersJSON(t *testing.T) {
	raw, entries := loadServers(t)
	if !bytes.HasPrefix(raw, utf8BOM) {
		t.Fatal("servers.json is expected to start with a UTF-8 BOM")
	}
	if len(entries) != 2794 {
		t.Fatalf("read %d entries, want 2794", len(entries))
	}
	first := entries[0]
	wantOfficial := &Official{
		Status:      StatusActive,
		PublishedAt: time.Date(2025, 9, 8, 23, 47, 9, 452138000, time.UTC),
		UpdatedAt:   time.Date(2025, 9, 9, 0, 16, 49, 162620000, time.UTC),
		IsLatest:    false,
	}
	if diff := cmp.Diff(wantOfficial, first.Official); diff != "" {
		t.Errorf("first entry's official metadata (-want +got):\n%s", diff)
	}
	wantServer := Server{
		Schema:      "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json",
		Name:        "app.getdialer/dialer",
		Description: "An MCP server that provides your you make outbound phone calls using your own phone number",
		Version:     "1.0.0",
		Repository:  &Repository{},
		Remotes: []Transport{
			{Type: "streamable-http", URL: "https://getdialer.app/mcp"},
			{Type: "sse", URL: "https://getdialer.app/sse"},
		},
	}
	if diff := cmp.Diff(wantServer, first.Server); diff != "" {
		t.Errorf("first entry's server.json (-want +got):\n%s", diff)
	}
	if bytes.ContainsAny(first.Raw, "\n") || !json.Valid(first.Raw) {
		t.Errorf("Raw is not compact JSON: %.80s", first.Raw)
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	_, entries := loadServers(t)
	var buf bytes.Buffer
	if err := WriteSnapshot(&buf, entries); err != nil {
		t.Fatal(err)
	}
	written := bytes.Clone(buf.Bytes())
	back, err := ReadSnapshot(&buf)
	if err != nil {
		t.Fatalf("reading the written snapshot: %v", err)
	}
	// reflect.DeepEqual first: cmp.Diff over 2,794 entries is slow under
	// -race, and is only needed to show a difference.
	if !reflect.DeepEqual(entries, back) {
		t.Errorf("snapshot round trip (-want +got):\n%.3000s", cmp.Diff(entries, back))
	}
	// Writing again gives the same bytes, and those are the original
	// values: compare generically to the source file.
	buf.Reset()
	if err := WriteSnapshot(&buf, back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(written, buf.Bytes()) {
		t.Error("writing the same entries twice gave different bytes")
	}
	raw, _ := loadServers(t)
	var orig, again any
	if err := json.Unmarshal(bytes.TrimPrefix(raw, utf8BOM), &orig); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(written, &again); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(orig, again) {
		t.Errorf("written snapshot differs from servers.json as JSON values (-want +got):\n%.3000s", cmp.Diff(orig, again))
	}
}

func TestWriteSnapshotEmptyAndClosed(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSnapshot(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "[]\n" {
		t.Errorf("empty snapshot = %q, want %q", got, "[]\n")
	}
	got, err := ReadSnapshot(&buf)
	if err != nil || len(got) != 0 {
		t.Errorf("reading an empty snapshot: %v, %d entries", err, len(got))
	}
	w := NewSnapshotWriter(&buf)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(Entry{}); err != ErrWriterClosed {
		t.Errorf("Add after Close: %v, want ErrWriterClosed", err)
	}
	if err := WriteSnapshot(&buf, []Entry{{}}); err == nil || !strings.Contains(err.Error(), "no raw server.json") {
		t.Errorf("writing an entry without Raw: %v", err)
	}
}

const (
	respA = `{"server":{"name":"io.example/a","version":"1.0.0","description":"A"},"_meta":{"io.modelcontextprotocol.registry/official":{"status":"active","isLatest":true}}}`
	respB = `{"server":{"name":"io.example/b","version":"2.0.0","description":"B","packages":[{"registryType":"npm","identifier":"b","transport":{"type":"stdio"}}]}}`
	bareC = `{"name":"io.example/c","version":"0.1.0","description":"C"}`
)

func TestReadSnapshotFormats(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"array", "[" + respA + "," + respB + "]", []string{"io.example/a@1.0.0", "io.example/b@2.0.0"}},
		{"array with BOM", "\uFEFF[" + respA + "]", []string{"io.example/a@1.0.0"}},
		{"API page", `{"servers":[` + respA + `,` + respB + `],"metadata":{"nextCursor":"x","count":2}}`,
			[]string{"io.example/a@1.0.0", "io.example/b@2.0.0"}},
		{"empty API page", `{"servers":[],"metadata":{"count":0}}`, nil},
		{"NDJSON", respA + "\n" + respB + "\n" + bareC + "\n", []string{"io.example/a@1.0.0", "io.example/b@2.0.0", "io.example/c@0.1.0"}},
		{"NDJSON with BOM and CRLF", "\uFEFF" + respA + "\r\n" + respB + "\r\n", []string{"io.example/a@1.0.0", "io.example/b@2.0.0"}},
		{"NDJSON of pages", `{"servers":[` + respA + `]}` + "\n" + `{"servers":[` + respB + `]}`, []string{"io.example/a@1.0.0", "io.example/b@2.0.0"}},
		{"bare server.json array", "[" + bareC + "]", []string{"io.example/c@0.1.0"}},
		{"single response", respB, []string{"io.example/b@2.0.0"}},
		{"empty", "", nil},
		{"whitespace", " \n\t", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadSnapshot(strings.NewReader(tt.in))
			if err != nil {
				t.Fatalf("ReadSnapshot: %v", err)
			}
			if diff := cmp.Diff(tt.want, nilIfEmpty(ids(got))); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
		})
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestReadSnapshotSeed(t *testing.T) {
	f, err := os.Open(sharedRegistryPath(t, "seed.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	entries, err := ReadSnapshot(f)
	if err != nil {
		t.Fatalf("seed.json: %v", err)
	}
	want := []string{
		"io.github.domdomegg/airtable-mcp-server@1.7.2",
		"io.github.domdomegg/airtable-mcp-server@1.7.3",
		"io.github.domdomegg/time-mcp-nuget@1.0.8",
		"io.github.domdomegg/time-mcp-pypi@1.0.6",
	}
	if diff := cmp.Diff(want, ids(entries)); diff != "" {
		t.Errorf("seed.json entries (-want +got):\n%s", diff)
	}
	// Bare server.json entries carry no registry metadata, so planning keeps
	// them all.
	plans, st := Plans(entries, nil)
	if st.Kept != 4 || len(plans) != 8 {
		t.Errorf("planned %d of 4 entries into %d plans, want 4 into 8", st.Kept, len(plans))
	}
}

func TestReadSnapshotErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"a number", `42`, "snapshot: value 1: want an array of server responses, a page or a server response, got a number 42"},
		{"array of numbers", `[1]`, "snapshot: value 1: entry 0: want a JSON object, got a number 1"},
		{"server is an array", `[{"server":[]}]`, `snapshot: value 1: entry 0: "server": want a server.json object, got an array []`},
		{"meta is a string", `[{"server":{"name":"a/b","version":"1"},"_meta":"x"}]`, `snapshot: value 1: entry 0 ("a/b@1"): "_meta": want an object, got a string "x"`},
		{"neither response nor server.json", `[{"foo":1}]`, `snapshot: value 1: entry 0: neither a registry server response (no "server") nor a server.json (no "name")`},
		{"packages is a string", `[{"server":{"name":"a/b","version":"1","packages":"npm"}}]`,
			`snapshot: value 1: entry 0 ("a/b@1"): decoding server.json: json: cannot unmarshal string into Go struct field Server.packages of type []source.Package`},
		{"bad official metadata", `[{"server":{"name":"a/b","version":"1"},"_meta":{"io.modelcontextprotocol.registry/official":{"isLatest":"yes"}}}]`,
			`snapshot: value 1: entry 0 ("a/b@1"): decoding "_meta": json: cannot unmarshal string into Go struct field Official.io.modelcontextprotocol.registry/official.isLatest of type bool`},
		{"page servers is a number", `{"servers":5}`, "snapshot: value 1: page \"servers\": want an array, got a number 5"},
		{"truncated array", `[` + respA + `,`, "snapshot: value 1: entry 1 (starting at byte 161): unexpected EOF"},
		{"unclosed array", `[` + respA, "snapshot: value 1 (at byte 161): unexpected EOF"},
		{"array elements without a comma", `[` + respA + ` ` + respB + `]`, "snapshot: value 1: entry 1 (starting at byte 162): expected comma after array element"},
		{"truncated NDJSON object", `{"server":{"name":"a/b"`, "snapshot: value 1 (starting at byte 0): unexpected EOF"},
		{"second NDJSON line broken", respA + "\n" + `{"server":` + "\n", "snapshot: value 2 (starting at byte 160): unexpected EOF"},
		{"legacy format", `[{"id":"x","name":"a/b","version_detail":{"version":"1"}}]`,
			`snapshot: value 1: entry 0 ("a/b"): legacy pre-preview registry format ("version_detail"); it is not a server.json`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadSnapshot(strings.NewReader(tt.in))
			if err == nil {
				t.Fatalf("ReadSnapshot succeeded with %d entries, want error %s", len(got), tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
			if got != nil {
				t.Errorf("entries returned with the error: %d", len(got))
			}
		})
	}
}

func TestReadSnapshotLegacySeed(t *testing.T) {
	f, err := os.Open(sharedRegistryPath(t, "seed_2025_05_16.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = ReadSnapshot(f)
	if err == nil || !strings.Contains(err.Error(), "legacy pre-preview registry format") {
		t.Errorf("reading the legacy seed: %v, want a legacy-format error", err)
	}
}

func FuzzReadSnapshot(f *testing.F) {
	f.Add([]byte("[" + respA + "," + respB + "]"))
	f.Add([]byte(`{"servers":[` + respA + `],"metadata":{"nextCursor":"x"}}`))
	f.Add([]byte(respA + "\n" + bareC + "\n"))
	f.Add([]byte("\uFEFF[]"))
	f.Add([]byte(`[{"server":{"name":"a/b","version":"1","remotes":[{"type":"sse","url":"https://x/{v}","variables":{"v":{"default":"1"}}}]},"_meta":null}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := ReadSnapshot(bytes.NewReader(data))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteSnapshot(&buf, entries); err != nil {
			t.Fatalf("WriteSnapshot of read entries: %v", err)
		}
		back, err := ReadSnapshot(&buf)
		if err != nil {
			t.Fatalf("reading back: %v\n%s", err, buf.Bytes())
		}
		if diff := cmp.Diff(entries, back); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
		// Planning never fails on what was read.
		Plans(entries, &PlanOptions{AllVersions: true, IncludeDeprecated: true})
	})
}
