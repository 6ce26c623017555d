//go:build !unix

package transfer

import (
	"io"
	"os"
)

// openNote opens a note and gives its size.
func openNote(p string) (io.ReadCloser, int64, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, fi.Size(), nil
}
