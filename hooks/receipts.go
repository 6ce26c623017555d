package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"time"

	"github.com/git-records/git-records/gitstore"
)

// Git runs pre-receive once for a push, then update once per ref. When our
// pre-receive has judged and accepted the push, it leaves a receipt for
// each ref update it judged, and the update hook that follows takes the
// receipt instead of judging the same commits a second time. Without a
// receipt (a forge that runs update hooks but not pre-receive ones, or a
// receipt gone stale), update judges as it always did.

// receiptTTL bounds how long a receipt stands: the update hooks run right
// after pre-receive, so an older receipt is from a push that never got
// that far, and is not taken.
const receiptTTL = 5 * time.Minute

func receiptPath(s *gitstore.Store, u RefUpdate) string {
	sum := sha256.Sum256([]byte(u.Ref + "\x00" + u.Old.String() + "\x00" + u.New.String()))
	return filepath.Join(s.CommonDir(), "records", "receipts", hex.EncodeToString(sum[:]))
}

// LeaveReceipts records that pre-receive judged and accepted updates. A
// receipt that cannot be written only costs the update hook a second look.
func LeaveReceipts(s *gitstore.Store, updates []RefUpdate, now time.Time) {
	// Receipts no update hook took (a push refused after pre-receive, a
	// forge that runs no update hooks) are swept as new ones are left.
	dir := filepath.Join(s.CommonDir(), "records", "receipts")
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) >= receiptTTL {
				_ = os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	for _, u := range updates {
		p := receiptPath(s, u)
		if os.MkdirAll(filepath.Dir(p), 0o755) == nil {
			_ = os.WriteFile(p, nil, 0o644)
		}
	}
}

// TakeReceipt reports whether pre-receive accepted u within receiptTTL,
// and removes the receipt: each is taken once.
func TakeReceipt(s *gitstore.Store, u RefUpdate, now time.Time) bool {
	p := receiptPath(s, u)
	fi, err := os.Stat(p)
	if err != nil {
		return false
	}
	if os.Remove(p) != nil {
		return false
	}
	return fi.Mode().IsRegular() && now.Sub(fi.ModTime()) < receiptTTL && !fi.ModTime().After(now.Add(time.Minute))
}
