package sandbox

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// What an exposed folder may hold that a server must still not reach,
// whatever path it was exposed by: the results database (compared by
// device and inode with the file --db names and its -wal, -shm and
// -journal), any older mcpvet database (an SQLite file carrying mcpvet's
// application id), and Unix sockets (a daemon listening in a project
// folder, a tmux or X11 socket): the network namespace does not cover
// them. Each is masked with /dev/null in the sandbox.

// mcpvetApplicationID is the SQLite application_id of mcpvet's results
// databases ("mcpv"; results.applicationID, which sandbox may not import).
const mcpvetApplicationID = 0x6d637076

// maskScanBudget bounds the entries looked at in the exposed folders of
// one launch; past it, the rest is not scanned and a warning says so.
var maskScanBudget = 200_000

// maskHostFiles walks the exposed folders (symlinks not followed) and
// masks the files above. A folder's real path is walked: that is where
// the layout binds it.
func (s *Server) maskHostFiles() {
	var hidden []os.FileInfo
	for _, h := range hiddenForms(s.opts.Hidden) {
		if fi, err := os.Stat(h); err == nil {
			hidden = append(hidden, fi)
		}
	}
	budget := maskScanBudget
	for _, e := range s.exposed {
		root := e.Path
		if r, err := filepath.EvalSymlinks(root); err == nil {
			root = r
		}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable: the server cannot read it either
			}
			if budget--; budget < 0 {
				return fs.SkipAll
			}
			t := d.Type()
			switch {
			case t&fs.ModeSocket != 0:
				s.mask(p)
			case t.IsRegular():
				fi, err := d.Info()
				if err != nil {
					return nil
				}
				for _, h := range hidden {
					if os.SameFile(fi, h) {
						s.mask(p)
						return nil
					}
				}
				if isMcpvetDB(p, fi) {
					for _, f := range []string{p, p + "-wal", p + "-shm", p + "-journal"} {
						if _, err := os.Lstat(f); err == nil {
							s.mask(f)
						}
					}
				}
			}
			return nil
		})
		_ = err
		if budget < 0 {
			s.warnings = append(s.warnings, fmt.Sprintf("the exposed folders hold more than %d entries: those past it were not checked for sockets and databases to mask; expose a smaller folder", maskScanBudget))
			return
		}
	}
}

// mask adds p to the masked files once.
func (s *Server) mask(p string) {
	if !slices.Contains(s.masked, p) {
		s.masked = append(s.masked, p)
	}
}

// isMcpvetDB reports whether the regular file p is an SQLite database
// carrying mcpvet's application id. Only sizes an SQLite file can have (a
// multiple of 512, the smallest page size) are opened.
func isMcpvetDB(p string, fi os.FileInfo) bool {
	if fi.Size() < 512 || fi.Size()%512 != 0 {
		return false
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	var hdr [100]byte
	if n, _ := f.Read(hdr[:]); n < 100 {
		return false
	}
	return bytes.HasPrefix(hdr[:], []byte("SQLite format 3\x00")) && binary.BigEndian.Uint32(hdr[68:72]) == mcpvetApplicationID
}

// realWithin reports whether f, with its symlinks resolved, lies in dir
// with its symlinks resolved, and returns f's real path.
func realWithin(f, dir string) (string, bool) {
	rf, err := filepath.EvalSymlinks(f)
	if err != nil {
		return "", false
	}
	rd, err := filepath.EvalSymlinks(dir)
	if err != nil {
		rd = dir
	}
	return rf, within(rf, rd)
}
