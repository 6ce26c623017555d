package gitdir

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// Name is the path of the last pack Sync made visible, without its
// extension (…/objects/pack/pack-<checksum>); "" before the first.
func (w *PackWriter) Name() string { return w.synced }

// AppendPack copies every object of the pack named pack (a path without
// its .pack or .idx extension) into this one, its compressed bytes as they
// are: consolidating small packs costs a copy, a CRC and the new pack's
// checksum, not a decompression and a compression per object. Each entry
// is checked against the CRC its .idx records first. Only whole objects
// are taken: a pack with deltas (git's own) is refused, so a caller
// consolidates the packs it wrote itself with this writer. An object this
// pack already holds is not copied twice. Nothing is visible before Sync;
// after an error, Abort the writer (what was copied may be incomplete).
func (w *PackWriter) AppendPack(pack string) error {
	idx, err := os.ReadFile(pack + ".idx")
	if err != nil {
		return fmt.Errorf("read pack index: %w", err)
	}
	entries, err := readIdx(idx)
	if err != nil {
		return fmt.Errorf("read %s.idx: %w", pack, err)
	}
	f, err := os.Open(pack + ".pack")
	if err != nil {
		return fmt.Errorf("read pack: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("read pack: %w", err)
	}
	r := packReaders.Get().(*bufio.Reader)
	r.Reset(f)
	defer func() {
		r.Reset(nil)
		packReaders.Put(r)
	}()
	// The pack is read once, in order: each entry checked against its
	// CRC, the whole against its checksum, which is what its index names.
	sum := sha1.New()
	var header [packHeaderSize]byte
	if _, err := io.ReadFull(r, header[:]); err != nil {
		return fmt.Errorf("read pack: %w", err)
	}
	sum.Write(header[:])
	if !bytes.HasPrefix(header[:], []byte("PACK")) || binary.BigEndian.Uint32(header[8:]) != uint32(len(entries)) {
		return fmt.Errorf("%s.pack does not match its index", pack)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].offset < entries[j].offset })
	end := fi.Size() - 20
	var raw []byte
	for i, e := range entries {
		next := end
		if i+1 < len(entries) {
			next = entries[i+1].offset
		}
		start := int64(packHeaderSize)
		if i > 0 {
			start = entries[i-1].offset + int64(len(raw))
		}
		if e.offset != start || next <= e.offset || next > end {
			return fmt.Errorf("%s.idx gives an entry outside its pack", pack)
		}
		if n := int(next - e.offset); cap(raw) < n {
			raw = make([]byte, n)
		} else {
			raw = raw[:n]
		}
		if _, err := io.ReadFull(r, raw); err != nil {
			return fmt.Errorf("read pack: %w", err)
		}
		sum.Write(raw)
		if crc32.ChecksumIEEE(raw) != e.crc {
			return fmt.Errorf("%s.pack: object %s does not match the CRC its index records", pack, e.hash)
		}
		if t := plumbing.ObjectType(raw[0] >> 4 & 7); t < plumbing.CommitObject || t > plumbing.TagObject {
			return fmt.Errorf("%s.pack holds a delta (%s): only whole objects are copied", pack, t)
		}
		if _, ok := w.seen[e.hash]; ok {
			continue
		}
		if w.f == nil {
			if err := w.start(); err != nil {
				return err
			}
		}
		if _, err := w.buf.Write(raw); err != nil {
			return fmt.Errorf("write pack: %w", err)
		}
		w.entries = append(w.entries, packEntry{hash: e.hash, offset: w.offset, crc: e.crc})
		w.seen[e.hash] = w.offset
		w.offset += int64(len(raw))
	}
	var trailer [20]byte
	if _, err := io.ReadFull(r, trailer[:]); err != nil {
		return fmt.Errorf("read pack: %w", err)
	}
	if !bytes.Equal(sum.Sum(nil), trailer[:]) || !bytes.Equal(trailer[:], idx[len(idx)-40:len(idx)-20]) {
		return fmt.Errorf("%s.pack does not match its checksum", pack)
	}
	return nil
}

// RemovePack deletes the pack named pack (as AppendPack names it), its
// index first: readers find packs by their .idx, so none starts on a pack
// whose data is gone, and one that has it open or mapped goes on reading
// it (git's own repack -d removes packs under running readers the same
// way; a reader that misses lists the packs again).
func RemovePack(pack string) error {
	if base := filepath.Base(pack); !strings.HasPrefix(base, "pack-") || strings.Contains(base, ".") {
		return fmt.Errorf("gitdir: %s is not a pack name", pack)
	}
	for _, ext := range []string{".idx", ".pack", ".rev", ".bitmap"} {
		if err := os.Remove(pack + ext); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("remove %s%s: %w", pack, ext, err)
		}
	}
	return nil
}

// readIdx reads a version-2 pack index's entries.
func readIdx(b []byte) ([]packEntry, error) {
	const fanoutEnd = 8 + 256*4
	if len(b) < fanoutEnd+40 || !bytes.Equal(b[:8], []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}) {
		return nil, fmt.Errorf("not a version 2 pack index")
	}
	if sum := sha1.Sum(b[:len(b)-20]); !bytes.Equal(sum[:], b[len(b)-20:]) {
		return nil, fmt.Errorf("the pack index does not match its checksum")
	}
	n := int(binary.BigEndian.Uint32(b[fanoutEnd-4 : fanoutEnd]))
	names, crcs, offs := fanoutEnd, fanoutEnd+20*n, fanoutEnd+24*n
	large := offs + 4*n
	if n < 0 || large+40 > len(b) {
		return nil, fmt.Errorf("truncated pack index")
	}
	entries := make([]packEntry, n)
	for i := range entries {
		e := &entries[i]
		copy(e.hash[:], b[names+20*i:])
		e.crc = binary.BigEndian.Uint32(b[crcs+4*i:])
		off := binary.BigEndian.Uint32(b[offs+4*i:])
		if off&(1<<31) == 0 {
			e.offset = int64(off)
			continue
		}
		at := large + 8*int(off&^(1<<31))
		if at+8 > len(b)-40 {
			return nil, fmt.Errorf("truncated pack index")
		}
		e.offset = int64(binary.BigEndian.Uint64(b[at:]))
	}
	return entries, nil
}

// Abort drops what was written since the last Sync: the temporary file is
// removed and nothing becomes visible.
func (w *PackWriter) Abort() {
	if w.f == nil {
		return
	}
	w.f.Close()
	os.Remove(w.f.Name())
	w.release()
}
