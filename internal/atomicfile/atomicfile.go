// Package atomicfile writes a file whole or not at all: the bytes go to a
// temporary file beside it (mode 0600), which is then renamed over it, so
// a reader never sees half a record and a crash leaves the old one.
package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes data to path through a temporary file in the same folder,
// creating the folder with dirPerm first. On any failure the temporary
// file is removed and path is left as it was.
func Write(path string, data []byte, dirPerm fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, dirPerm); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	err = errors.Join(werr, tmp.Close())
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}
