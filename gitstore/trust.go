package gitstore

import (
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-records/git-records/kernel"
)

// Trust is the store's trust as of this view: kernel.NewTrust over the
// view's .records/allowed_signers and .records/policy.yaml. When those do
// not parse, the trust allows nothing, and it remembers the nearest
// first-parent ancestor's trust that parsed, under which the repairing
// policy commit is judged (kernel.Trust.For).
func (v *View) Trust() (*kernel.Trust, error) {
	t, err := v.trustOfTree()
	if err != nil || t.Err() == nil || v.tip.IsZero() {
		return t, err
	}
	for h := v.tip; ; {
		c, err := v.s.commit(h)
		if err != nil {
			return nil, err
		}
		if len(c.ParentHashes) == 0 {
			return t, nil
		}
		h = c.ParentHashes[0]
		pv, err := v.s.viewAt(h)
		if err != nil {
			return nil, err
		}
		good, err := pv.trustOfTree()
		if err != nil {
			return nil, err
		}
		if good.Err() == nil {
			return t.WithLastGood(good), nil
		}
	}
}

// TrustWith is the trust the view would have with files written over it
// (path → content, as a Mutation's Files): what a commit leaves.
func (v *View) TrustWith(files map[string][]byte) (*kernel.Trust, error) {
	t, err := v.trustOfTree()
	if err != nil {
		return nil, err
	}
	signers, policy := t.SignersData(), t.PolicyData()
	if data, ok := files[AllowedSignersPath]; ok {
		signers = append([]byte{}, data...)
	}
	if data, ok := files[PolicyPath]; ok {
		policy = append([]byte{}, data...)
	}
	return kernel.NewTrust(signers, policy), nil
}

func (v *View) trustOfTree() (*kernel.Trust, error) {
	var files [2][]byte
	for i, path := range []string{AllowedSignersPath, PolicyPath} {
		data, err := v.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if h, _ := v.FileHash(path); !h.IsZero() && data == nil {
			data = []byte{} // present and empty is not absent
		}
		files[i] = data
	}
	return kernel.NewTrust(files[0], files[1]), nil
}

// TrustFiles are the blobs trust is read from at a view (zero: absent), by
// which callers that judge many commits share one parsed Trust.
func (v *View) TrustFiles() [2]plumbing.Hash {
	signers, _ := v.FileHash(AllowedSignersPath)
	policy, _ := v.FileHash(PolicyPath)
	return [2]plumbing.Hash{signers, policy}
}
