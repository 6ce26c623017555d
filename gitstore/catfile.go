package gitstore

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// catFileObjects reads objects through one long-lived `git cat-file
// --batch`. The store uses it where go-git cannot see every object git
// can: inside a receive hook, where pushed objects sit in a quarantine
// directory named only by environment variables (GIT_OBJECT_DIRECTORY,
// GIT_ALTERNATE_OBJECT_DIRECTORIES), and in repositories with alternates.
type catFileObjects struct {
	storer.EncodedObjectStorer // nil: only reads are used; anything else panics loudly

	mu     sync.Mutex
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	broken error // a read failed mid-stream: later answers would be misread
}

// needsGitObjects reports whether objects may live where go-git does not look.
func needsGitObjects(commonDir string) bool {
	for _, v := range []string{"GIT_QUARANTINE_PATH", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES"} {
		if os.Getenv(v) != "" {
			return true
		}
	}
	_, err := os.Stat(commonDir + "/objects/info/alternates")
	return err == nil
}

func newCatFileObjects(gitDir string) (*catFileObjects, error) {
	cmd := exec.Command("git", "--git-dir="+gitDir, "cat-file", "--batch")
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start git cat-file: %w", err)
	}
	return &catFileObjects{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16)}, nil
}

func (c *catFileObjects) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return nil, c.broken
	}
	o, err := c.read(t, h)
	if err != nil && !errors.Is(err, plumbing.ErrObjectNotFound) {
		c.broken = fmt.Errorf("git cat-file --batch stopped answering: %w", err)
	}
	return o, err
}

// read asks for one object; the caller holds the lock.
func (c *catFileObjects) read(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if _, err := fmt.Fprintf(c.in, "%s\n", h); err != nil {
		return nil, err
	}
	header, err := c.out.ReadString('\n')
	if err != nil {
		return nil, err
	}
	fields := bytes.Fields([]byte(header))
	if len(fields) == 2 && string(fields[1]) == "missing" {
		return nil, plumbing.ErrObjectNotFound
	}
	if len(fields) != 3 {
		return nil, fmt.Errorf("git cat-file: unexpected header %q", header)
	}
	typ, err := plumbing.ParseObjectType(string(fields[1]))
	if err != nil {
		return nil, err
	}
	size, err := strconv.ParseInt(string(fields[2]), 10, 64)
	if err != nil {
		return nil, err
	}
	data := make([]byte, size+1) // content and the trailing newline
	if _, err := io.ReadFull(c.out, data); err != nil {
		return nil, err
	}
	if t != plumbing.AnyObject && t != typ {
		return nil, plumbing.ErrObjectNotFound
	}
	o := &plumbing.MemoryObject{}
	o.SetType(typ)
	o.SetSize(size)
	_, _ = o.Write(data[:size])
	return o, nil
}

func (c *catFileObjects) HasEncodedObject(h plumbing.Hash) error {
	_, err := c.EncodedObject(plumbing.AnyObject, h)
	return err
}

func (c *catFileObjects) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	o, err := c.EncodedObject(plumbing.AnyObject, h)
	if err != nil {
		return 0, err
	}
	return o.Size(), nil
}

// Close ends the cat-file process.
func (c *catFileObjects) Close() error {
	c.in.Close()
	return c.cmd.Wait()
}
