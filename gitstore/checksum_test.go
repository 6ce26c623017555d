package gitstore

import (
	"hash/crc32"
	"math/rand"
	"testing"
)

// TestChecksumBytewiseIsCRC32C: the byte-by-byte sum a point read uses
// is hash/crc32's CRC-32C, for every length around the cut-overs, and
// checksum answers the same before and after the budget is spent.
func TestChecksumBytewiseIsCRC32C(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	buf := make([]byte, 3*bytewiseMax)
	rng.Read(buf)
	tab := crc32.MakeTable(crc32.Castagnoli)
	spent := bytewiseSpent.Load()
	defer bytewiseSpent.Store(spent)
	for _, budgetLeft := range []bool{true, false} {
		if budgetLeft {
			bytewiseSpent.Store(0)
		} else {
			bytewiseSpent.Store(bytewiseBudget)
		}
		for _, n := range []int{0, 1, 2, 3, 7, 8, 9, 63, 64, 65, 1000, bytewiseMax - 1, bytewiseMax, bytewiseMax + 1, 3 * bytewiseMax} {
			off := rng.Intn(8)
			if off+n > len(buf) {
				off = len(buf) - n
			}
			b := buf[off : off+n]
			want := crc32.Checksum(b, tab)
			if got := checksumBytewise(b); got != want {
				t.Fatalf("checksumBytewise(%d bytes) = %08x, CRC-32C is %08x", n, got, want)
			}
			if budgetLeft {
				bytewiseSpent.Store(0)
			}
			if got := checksum(b); got != want {
				t.Fatalf("checksum(%d bytes, budget left %v) = %08x, CRC-32C is %08x", n, budgetLeft, got, want)
			}
		}
	}
	// The known answer: CRC-32C("123456789") (RFC 3720, B.4).
	if got := checksumBytewise([]byte("123456789")); got != 0xe3069283 {
		t.Fatalf("checksumBytewise(123456789) = %08x, want e3069283", got)
	}
}
