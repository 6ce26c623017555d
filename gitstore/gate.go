package gitstore

import (
	"errors"
	"time"

	"github.com/git-records/git-records/gitstore/signing"
	"github.com/git-records/git-records/kernel"
)

// approvalVerifier checks an approval token: given for the tip the op is
// decided on and signed by a signer the trust there allows.
func (s *Store) approvalVerifier(tr *kernel.Trust, now time.Time) kernel.ApprovalVerifier {
	return func(token string, req kernel.ApprovalRequest) (string, string, error) {
		approvedTip, signature, err := kernel.ParseToken(token)
		if err != nil {
			return "", "", err
		}
		if approvedTip != req.Tip {
			return "", "", kernel.Errorf(kernel.CodeConflict, "the approval was given for tip %s and %s is now at %s: ask the approver for a fresh approval (`%s`)",
				short(approvedTip), s.ref, short(req.Tip), req.Command()).
				WithExtra("approve_command", req.Command())
		}
		signers, err := AllowedSigners(tr.Signers())
		if err != nil {
			return "", "", err
		}
		approver, _, err := signing.VerifyApproval(signers, req.Statement(), signature, now)
		if err != nil {
			return "", "", kernel.Errorf(kernel.CodePermissionDenied, "the approval is not a valid approval of this %s by an allowed signer (%s): have the approver run `%s`",
				req.Op, errorMessage(err), req.Command()).WithExtra("rule", "approval")
		}
		return approver, signature, nil
	}
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// errorMessage is a coded error's message without its code.
func errorMessage(err error) string {
	var e *kernel.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

func setTrailer(ts []kernel.Trailer, key, value string) []kernel.Trailer {
	for i := range ts {
		if ts[i].Key == key {
			ts[i].Value = value
			return ts
		}
	}
	return append(ts, kernel.Trailer{Key: key, Value: value})
}

// PrincipalAt is who this store's signer is under the branch's trust: the
// principal allowed_signers lists for its key; on a store without
// allowed_signers, the committer's email. A key the branch does not list is
// refused (PERMISSION_DENIED, rule allowed_signers): verify would reject
// every commit it signs.
func (s *Store) PrincipalAt(tr *kernel.Trust) (string, error) {
	signer, err := s.Signer()
	if err != nil {
		return "", err
	}
	_, email := s.Ident()
	if !tr.ListsSigners() {
		return email, nil
	}
	if signer.Format() != signing.FormatSSH {
		// Trust on the branch is SSH allowed signers; verify cannot place an
		// OpenPGP or x509 signature in it, so it would refuse every commit.
		return "", kernel.Errorf(kernel.CodePermissionDenied, "this store trusts SSH signers (%s) and your git signs with %s: set records.signingKey to an SSH key (git records init --generate-key makes one) or gpg.format=ssh",
			AllowedSignersPath, signer.Format()).WithExtra("rule", "allowed_signers")
	}
	if p := tr.Principal(signer.Principal()); p != "" {
		return p, nil
	}
	add := "git records signers add " + email + " <your public key>"
	if pk, ok := signer.(signing.PublicKeyer); ok && pk.PublicKeyLine() != "" {
		add = "git records signers add " + email + " '" + pk.PublicKeyLine() + "'"
	}
	return "", kernel.Errorf(kernel.CodePermissionDenied, "your signing key %s is not in %s, so no commit it signs would verify: ask a maintainer to run: %s --rationale … --agent …",
		signer.Principal(), AllowedSignersPath, add).WithExtra("rule", "allowed_signers")
}
