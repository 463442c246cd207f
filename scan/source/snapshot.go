package source

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ReadSnapshot reads registry entries from r, which holds any of:
//
//   - a JSON array of registry server responses ({"server": ..., "_meta": ...})
//     or of bare server.json objects, as servers.json or the registry's seed
//     files;
//   - one API page ({"servers": [...], "metadata": {...}});
//   - NDJSON: one server response, server.json or page per line (any
//     whitespace between the values works).
//
// A leading UTF-8 byte order mark is skipped. The first malformed value ends
// the read with an error naming its position; nothing is returned then, since
// a snapshot is a file the caller can fix.
func ReadSnapshot(r io.Reader) ([]Entry, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if bom, err := br.Peek(3); err == nil && bytes.Equal(bom, utf8BOM) {
		br.Discard(3)
	}
	first := peekNonSpace(br)
	dec := json.NewDecoder(br)
	var entries []Entry
	value := 1
	if first == '[' {
		// The common case, a file like servers.json: decode the array
		// element by element rather than holding it whole twice.
		if _, err := dec.Token(); err != nil {
			return nil, fmt.Errorf("snapshot: value 1: %w", err)
		}
		for i := 0; dec.More(); i++ {
			start := dec.InputOffset()
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, fmt.Errorf("snapshot: value 1: entry %d (starting at byte %d): %w", i, start, noEOF(err))
			}
			e, err := decodeEntry(raw)
			if err != nil {
				return nil, fmt.Errorf("snapshot: value 1: entry %d%s: %w", i, nameHint(raw), err)
			}
			entries = append(entries, e)
		}
		if _, err := dec.Token(); err != nil {
			return nil, fmt.Errorf("snapshot: value 1 (at byte %d): %w", dec.InputOffset(), noEOF(err))
		}
		value++
	}
	for ; ; value++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if err == io.EOF {
				return entries, nil
			}
			return nil, fmt.Errorf("snapshot: value %d (starting at byte %d): %w", value, dec.InputOffset(), err)
		}
		var err error
		entries, err = appendEntries(entries, raw)
		if err != nil {
			return nil, fmt.Errorf("snapshot: value %d: %w", value, err)
		}
	}
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// noEOF turns the end of input inside a value into io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// peekNonSpace skips JSON whitespace and returns the next byte without
// consuming it, or 0 at the end or on a read error (which the decoder will
// report).
func peekNonSpace(br *bufio.Reader) byte {
	for {
		b, err := br.Peek(1)
		if err != nil {
			return 0
		}
		if !isJSONSpace(b[0]) {
			return b[0]
		}
		br.Discard(1)
	}
}

// appendEntries decodes one top-level snapshot value: an array, a page or a
// single entry.
func appendEntries(entries []Entry, raw json.RawMessage) ([]Entry, error) {
	switch raw[0] {
	case '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return nil, err
		}
		return appendElems(entries, elems)
	case '{':
		var page struct {
			Servers json.RawMessage `json:"servers"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, err
		}
		if page.Servers == nil {
			e, err := decodeEntry(raw)
			if err != nil {
				return nil, err
			}
			return append(entries, e), nil
		}
		var elems []json.RawMessage
		if err := json.Unmarshal(page.Servers, &elems); err != nil {
			return nil, fmt.Errorf(`page "servers": want an array, got %s`, describeJSON(page.Servers))
		}
		return appendElems(entries, elems)
	default:
		return nil, fmt.Errorf("want an array of server responses, a page or a server response, got %s", describeJSON(raw))
	}
}

func appendElems(entries []Entry, elems []json.RawMessage) ([]Entry, error) {
	for i, el := range elems {
		e, err := decodeEntry(el)
		if err != nil {
			return nil, fmt.Errorf("entry %d%s: %w", i, nameHint(el), err)
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// nameHint returns ` ("NAME@VERSION")` for an element whose name can be read,
// so errors point at the offending server.
func nameHint(raw []byte) string {
	var f struct {
		Name    string `json:"name"`
		Version string `json:"version"`
		Server  struct {
			Name    string `json:"name"`
			Version string `json:"version"`
		} `json:"server"`
	}
	if json.Unmarshal(raw, &f) != nil {
		return ""
	}
	name, version := f.Server.Name, f.Server.Version
	if name == "" {
		name, version = f.Name, f.Version
	}
	if name == "" {
		return ""
	}
	if version != "" {
		name += "@" + version
	}
	return fmt.Sprintf(" (%q)", excerpt([]byte(name), 120))
}

// WriteSnapshot writes entries as a JSON array of registry server responses,
// which [ReadSnapshot] reads back to equal entries.
func WriteSnapshot(w io.Writer, entries []Entry) error {
	sw := NewSnapshotWriter(w)
	for _, e := range entries {
		if err := sw.Add(e); err != nil {
			return err
		}
	}
	return sw.Close()
}

// A SnapshotWriter writes a snapshot one entry at a time, so a crawl can be
// saved as it arrives. Call Close to finish the array. A SnapshotWriter is
// not safe for concurrent use.
type SnapshotWriter struct {
	w      *bufio.Writer
	n      int
	err    error
	closed bool
}

// NewSnapshotWriter returns a writer of a snapshot to w.
func NewSnapshotWriter(w io.Writer) *SnapshotWriter {
	return &SnapshotWriter{w: bufio.NewWriterSize(w, 64<<10)}
}

// ErrWriterClosed is returned by [SnapshotWriter.Add] after Close.
var ErrWriterClosed = errors.New("snapshot writer is closed")

// Add writes one entry.
func (s *SnapshotWriter) Add(e Entry) error {
	if s.closed {
		return ErrWriterClosed
	}
	if s.err != nil {
		return s.err
	}
	b, err := e.MarshalJSON()
	if err != nil {
		return fmt.Errorf("writing snapshot: %w", err)
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, b, "  ", "  "); err != nil {
		return fmt.Errorf("writing snapshot: entry %s: %w", e.ID(), err)
	}
	if s.n == 0 {
		s.w.WriteString("[\n  ")
	} else {
		s.w.WriteString(",\n  ")
	}
	s.n++
	if _, err := s.w.Write(ind.Bytes()); err != nil {
		s.err = fmt.Errorf("writing snapshot: %w", err)
	}
	return s.err
}

// Close ends the array and flushes. It does not close the underlying writer.
// Calling Close again does nothing.
func (s *SnapshotWriter) Close() error {
	if s.closed {
		return s.err
	}
	s.closed = true
	if s.err != nil {
		return s.err
	}
	if s.n == 0 {
		s.w.WriteString("[]\n")
	} else {
		s.w.WriteString("\n]\n")
	}
	if err := s.w.Flush(); err != nil {
		s.err = fmt.Errorf("writing snapshot: %w", err)
	}
	return s.err
}
