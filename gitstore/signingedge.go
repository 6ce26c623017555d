package gitstore

import (
	"errors"

	"github.com/git-records/git-records/gitstore/signing"
	"github.com/git-records/git-records/kernel"
)

// FromSigning gives an error signing returns the kernel code its callers
// act on, with its message unchanged: no key is NO_SIGNING_KEY, a signer
// that failed is SIGNING_FAILED (with the program's output as "stderr"),
// a signature that does not verify VERIFY_FAILED, one of a format checked
// only by git UNSUPPORTED_SIGNATURE, a key file in the way USAGE. Any
// other error, a coded one included, is returned as it is.
func FromSigning(err error) error {
	var code kernel.Code
	switch {
	case err == nil || errors.As(err, new(*kernel.Error)):
		return err
	case errors.Is(err, signing.ErrNoSigningKey):
		code = kernel.CodeNoSigningKey
	case errors.Is(err, signing.ErrSigningFailed):
		e := &kernel.Error{Code: kernel.CodeSigningFailed, Message: err.Error(), Err: err}
		if program := (*signing.ProgramError)(nil); errors.As(err, &program) {
			e = e.WithExtra("stderr", program.Output)
		}
		return e
	case errors.Is(err, signing.ErrNotVerified):
		code = kernel.CodeVerifyFailed
	case errors.Is(err, signing.ErrUnsupportedFormat):
		code = kernel.CodeUnsupportedSignature
	case errors.Is(err, signing.ErrKeyExists):
		code = kernel.CodeUsage
	default:
		return err
	}
	return &kernel.Error{Code: code, Message: err.Error(), Err: err}
}

// AllowedSigners are the signers the kernel read from allowed_signers
// (a kernel.Trust's), each with its key read for signing.VerifySSH.
func AllowedSigners(signers []kernel.Signer) ([]signing.AllowedSigner, error) {
	out := make([]signing.AllowedSigner, len(signers))
	for i, k := range signers {
		out[i] = signing.AllowedSigner{Principals: k.Principals, Namespaces: k.Namespaces,
			ValidAfter: k.ValidAfter, ValidBefore: k.ValidBefore, CertAuthority: k.CertAuthority}
		if err := out[i].ReadKey(k.KeyBlob); err != nil {
			// The kernel checked the blob's shape; a key x/crypto still
			// refuses would be a disagreement between the two readers.
			return nil, kernel.Errorf(kernel.CodeInvalidRecord, "allowed signers line %d: %v", k.Line, err)
		}
	}
	return out, nil
}

// ParseAllowedSigners reads an allowed-signers file as the kernel does
// (kernel.ParseAllowedSigners: the one reading of the file, which verify,
// the gate and the hooks share), with each key read for the signature
// check.
func ParseAllowedSigners(data []byte) ([]signing.AllowedSigner, error) {
	parsed, err := kernel.ParseAllowedSigners(data)
	if err != nil {
		return nil, err
	}
	return AllowedSigners(parsed)
}
