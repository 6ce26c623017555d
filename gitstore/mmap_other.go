//go:build !unix

package gitstore

import "os"

func readIndexFile(path string) ([]byte, error) { return os.ReadFile(path) }

func releaseIndexFile([]byte) {}

func adviseRandom([]byte) {}

// mapsPacks: without mmap a pack would be read whole; go-git reads it.
const mapsPacks = false

func dropMappedPages([]byte) {}
