package results

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/mcpvet/mcpvet/internal/atomicfile"
)

// Skipping a repeated quick_check (issue 25: probe cost). quick_check
// reads every page and grows with the database: 0.1 s for 9 MB at every
// open on a loaded 2-core machine, on the way of every probe. When the
// store closes cleanly (it was the last connection, so SQLite checkpointed
// the WAL into the file and removed it), it records the file's size and
// CRC-32C in the user's cache folder ($XDG_CACHE_HOME/mcpvet/db-checked/,
// one file per database path; nothing is added next to the database). The
// next open for writing compares
// the file's bytes with that record (one read of the file, a few ms for
// 10 MB) and skips quick_check only when they are equal and no WAL holds
// changes: the file is then byte for byte what SQLite itself wrote over a
// file that had passed the check. Any other change (a foreign write, a
// disk error, a copy over it, even one of the same size within one
// timestamp tick) changes the checksum, and quick_check runs as before.

// checkedDir returns the folder of the records, "" for none (a variable
// for the tests).
var checkedDir = func() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "mcpvet", "db-checked")
}

// checkedRecord names the record of the database at abs, "" for none.
func checkedRecord(abs string) string {
	dir := checkedDir()
	if dir == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(dir, hex.EncodeToString(sum[:16]))
}

// checkedMagic starts the record.
const checkedMagic = "mcpvet checked v1"

// quickChecks counts the quick_check runs (for tests).
var quickChecks atomic.Int32

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// fileState returns the size and CRC-32C of the file at path.
func fileState(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := crc32.New(castagnoli)
	n, err := io.Copy(h, f)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %q size=%d crc32c=%08x\n", checkedMagic, path, n, h.Sum32()), nil
}

// unchangedSinceChecked reports whether the database at abs is, byte for
// byte, the file a clean close recorded, with no WAL content beside it.
func unchangedSinceChecked(abs string) bool {
	if fi, err := os.Stat(abs + "-wal"); err == nil && fi.Size() > 0 {
		return false
	}
	file := checkedRecord(abs)
	if file == "" {
		return false
	}
	rec, err := os.ReadFile(file)
	if err != nil || len(rec) > 8<<10 || !bytes.HasPrefix(rec, []byte(checkedMagic+" ")) {
		return false
	}
	now, err := fileState(abs)
	return err == nil && now == string(rec)
}

// recordChecked writes the record of abs after a clean close, when no
// other connection left a WAL; any failure only costs the next open a
// quick_check.
func recordChecked(abs string) {
	file := checkedRecord(abs)
	if file == "" {
		return
	}
	if _, err := os.Lstat(abs + "-wal"); err == nil {
		// Another process still has it open: its writes would follow.
		_ = os.Remove(file)
		return
	}
	state, err := fileState(abs)
	if err != nil {
		return
	}
	pruneChecked(filepath.Dir(file))
	_ = atomicfile.Write(file, []byte(state), 0o700)
}

// maxCheckedRecords bounds the records kept before those of databases
// that no longer exist (test and scratch databases) are removed.
var maxCheckedRecords = 256

// pruneChecked removes, once dir holds more than maxCheckedRecords
// records, those whose database file is gone.
func pruneChecked(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) <= maxCheckedRecords {
		return
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		rec, err := os.ReadFile(p)
		if err != nil || len(rec) > 8<<10 {
			continue
		}
		var db string
		if _, err := fmt.Sscanf(strings.TrimPrefix(string(rec), checkedMagic+" "), "%q", &db); err != nil {
			_ = os.Remove(p)
			continue
		}
		if _, err := os.Stat(db); errors.Is(err, fs.ErrNotExist) {
			_ = os.Remove(p)
		}
	}
}
