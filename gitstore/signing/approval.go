package signing

import (
	"bytes"
	"encoding/base64"
	"time"
)

// ApprovalNamespace is the sshsig namespace approvals are signed in. It is
// not "git", so an approval is never a valid commit signature and a commit
// signature never a valid approval. An allowed-signers entry that restricts
// its key with namespaces= must list it for the key to approve
// (AllowedSignersLine does).
const ApprovalNamespace = "git-records-approval"

// SignApproval signs an approval statement (kernel.ApprovalRequest's
// Statement) with an SSH signer and returns the signature as the
// Approval-Signature trailer carries it: the sshsig blob in base64, on one
// line.
func SignApproval(signer Signer, statement []byte) (string, error) {
	ssh, ok := signer.(*sshSigner)
	if !ok {
		return "", noKeyErrorf("approvals are SSH signatures and your signing key is %s: set records.signingKey to an SSH key or pass --key", signer.Format())
	}
	armored, err := ssh.signIn(ApprovalNamespace, statement)
	if err != nil {
		return "", err
	}
	return oneLine(armored), nil
}

// VerifyApproval checks an Approval-Signature over an approval statement
// against the allowed signers, as VerifySSH checks a commit, in
// ApprovalNamespace, with the key valid at every instant in at. It returns
// the approver's principal and the key's fingerprint.
func VerifyApproval(signers []AllowedSigner, statement []byte, signature string, at ...time.Time) (principal, fingerprint string, err error) {
	blob, err := base64.StdEncoding.DecodeString(signature)
	if err != nil || len(blob) == 0 {
		return "", "", verifyError(ErrBadSignature, "Approval-Signature is not the base64 of an SSH signature")
	}
	return VerifySSHIn(ApprovalNamespace, signers, statement, armorSSH(blob), at...)
}

// oneLine is the base64 inside an armored SSH signature, unwrapped.
func oneLine(armored []byte) string {
	var b bytes.Buffer
	for _, line := range bytes.Split(armored, []byte("\n")) {
		if len(line) == 0 || bytes.HasPrefix(line, []byte("-----")) {
			continue
		}
		b.Write(bytes.TrimSpace(line))
	}
	return b.String()
}
