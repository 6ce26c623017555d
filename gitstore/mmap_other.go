//go:build !unix

package gitstore

import "os"

func readIndexFile(path string) ([]byte, error) { return os.ReadFile(path) }

// mapIndexFile reads the file: there is no mapping to fault in, and no
// file is kept open.
func mapIndexFile(path string) ([]byte, *os.File, error) {
	data, err := os.ReadFile(path)
	return data, nil, err
}

func releaseIndexFile([]byte) {}

func adviseRandom([]byte) {}

// mapsPacks: without mmap a pack would be read whole; go-git reads it.
const mapsPacks = false

func dropMappedPages([]byte) {}
