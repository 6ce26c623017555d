//go:build !unix

package gitstore

import "os"

func readIndexFile(path string) ([]byte, error) { return os.ReadFile(path) }

func releaseIndexFile([]byte) {}
