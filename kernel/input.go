package kernel

import (
	"encoding/json"
	"strconv"
	"strings"
)

// ExpiryInput is an op's expires_at: not given, cleared, or an instant.
// Front-ends hand the kernel the parsed value (ParseExpiryInput for text,
// the JSON decoder for a request), so a malformed one is refused where it
// is read, as INVALID_RECORD naming expires_at.
type ExpiryInput struct {
	Set bool       // given; a create ignores a cleared expiry
	At  *Timestamp // nil: cleared
}

// ExpiresAt is the expiry input t.
func ExpiresAt(t Timestamp) ExpiryInput { return ExpiryInput{Set: true, At: &t} }

// ParseExpiryInput reads an expiry given as text: "" clears it, anything
// else is an ISO-8601 instant.
func ParseExpiryInput(s string) (ExpiryInput, error) {
	if s == "" {
		return ExpiryInput{Set: true}, nil
	}
	t, err := ParseTimestamp(s)
	if err != nil {
		return ExpiryInput{}, Errorf(CodeInvalidRecord, "expires_at: %v", err).WithField("expires_at")
	}
	return ExpiresAt(t), nil
}

// UnmarshalJSON reads an ISO-8601 string; null or "" clears the expiry.
func (e *ExpiryInput) UnmarshalJSON(b []byte) error {
	var s *string
	if json.Unmarshal(b, &s) != nil {
		return Errorf(CodeInvalidRecord, "expires_at must be an ISO-8601 string, got %s", b).WithField("expires_at")
	}
	if s == nil {
		*e = ExpiryInput{Set: true}
		return nil
	}
	v, err := ParseExpiryInput(*s)
	*e = v
	return err
}

// MarshalJSON is the JSON UnmarshalJSON reads back.
func (e ExpiryInput) MarshalJSON() ([]byte, error) {
	if e.At == nil {
		return []byte("null"), nil
	}
	return e.At.MarshalJSON()
}

// value is the expiry an op writes (a copy: the record owns it), nil when
// cleared or not given.
func (e ExpiryInput) value() *Timestamp {
	if e.At == nil {
		return nil
	}
	t := *e.At
	return &t
}

// TTLInput is an op's ttl_seconds: not given, cleared, or a number of
// seconds, which the op requires to be positive.
type TTLInput struct {
	Set     bool
	Seconds *float64 // nil: cleared
}

// TTL is the ttl input of n seconds.
func TTL(n float64) TTLInput { return TTLInput{Set: true, Seconds: &n} }

// ParseTTLInput reads a ttl given as text: "" clears it, anything else is
// a number of seconds.
func ParseTTLInput(s string) (TTLInput, error) {
	if s == "" {
		return TTLInput{Set: true}, nil
	}
	n, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return TTLInput{}, Errorf(CodeInvalidRecord, "ttl_seconds must be a number of seconds, got %q", s).WithField("ttl_seconds")
	}
	return TTL(n), nil
}

// UnmarshalJSON reads a number; null or "" clears the ttl. A number in a
// string is refused, as the contract types it a number.
func (t *TTLInput) UnmarshalJSON(b []byte) error {
	var x any
	if json.Unmarshal(b, &x) != nil {
		return Errorf(CodeInvalidRecord, "ttl_seconds must be a positive number").WithField("ttl_seconds")
	}
	switch n := x.(type) {
	case nil:
		*t = TTLInput{Set: true}
		return nil
	case string:
		if n == "" {
			*t = TTLInput{Set: true}
			return nil
		}
	case float64:
		*t = TTL(n)
		return nil
	}
	return Errorf(CodeInvalidRecord, "ttl_seconds must be a positive number of seconds, got %s", b).WithField("ttl_seconds")
}

// MarshalJSON is the JSON UnmarshalJSON reads back.
func (t TTLInput) MarshalJSON() ([]byte, error) {
	if t.Seconds == nil {
		return []byte("null"), nil
	}
	return json.Marshal(*t.Seconds)
}

// value is the ttl an op writes: nil when cleared or not given, refused
// unless positive.
func (t TTLInput) value() (*float64, error) {
	if t.Seconds != nil && !(*t.Seconds > 0) {
		return nil, Errorf(CodeInvalidRecord, "ttl_seconds must be a positive number of seconds, got %v", *t.Seconds).WithField("ttl_seconds")
	}
	if t.Seconds == nil {
		return nil, nil
	}
	n := *t.Seconds
	return &n, nil
}
