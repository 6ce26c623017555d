package gitstore

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/git-records/git-records/kernel"
)

// AppendJSON appends h's JSON to dst: byte for byte what a json.Encoder
// with SetEscapeHTML(false) and SetIndent(prefix, indent) writes for h
// (compact when both are ""), without the trailing newline; it makes h a
// cmdutil.JSONAppender. search --json writes a few hits per process, and
// encoding/json built its encoders for the type by reflection first, in
// every process: about as much CPU as ranking the hits of a rare word.
// TestSearchHitJSONAsEncodingJSON holds it to encoding/json.
//
// The error is encoding/json's for a score that is not a finite number,
// and then dst is returned as it came.
func (h *SearchHit) AppendJSON(dst []byte, prefix, indent string) ([]byte, error) {
	if math.IsNaN(h.Score) || math.IsInf(h.Score, 0) {
		_, err := json.Marshal(h.Score)
		return dst, err
	}
	pretty := prefix != "" || indent != ""
	b := dst
	line := func(depth int) {
		if pretty {
			b = append(b, '\n')
			b = append(b, prefix...)
			for range depth {
				b = append(b, indent...)
			}
		}
	}
	key := func(k string, first bool) {
		if !first {
			b = append(b, ',')
		}
		line(1)
		b = append(b, '"')
		b = append(b, k...)
		b = append(b, '"', ':')
		if pretty {
			b = append(b, ' ')
		}
	}
	str := func(k, v string) {
		key(k, k == "id")
		b = kernel.AppendJSONString(b, v)
	}
	b = append(b, '{')
	str("id", h.ID)
	str("title", h.Title)
	str("type", h.Type)
	if h.Category != "" {
		str("category", h.Category)
	}
	str("status", string(h.Status))
	key("score", false)
	b = appendJSONFloat(b, h.Score)
	key("matched", false)
	if h.Matched == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, m := range h.Matched {
			if i > 0 {
				b = append(b, ',')
			}
			line(2)
			b = kernel.AppendJSONString(b, m)
		}
		if len(h.Matched) > 0 {
			line(1)
		}
		b = append(b, ']')
	}
	str("snippet", h.Text)
	key("highlights", false)
	if h.Highlights == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, r := range h.Highlights {
			if i > 0 {
				b = append(b, ',')
			}
			line(2)
			b = append(b, '[')
			line(3)
			b = strconv.AppendInt(b, int64(r[0]), 10)
			b = append(b, ',')
			line(3)
			b = strconv.AppendInt(b, int64(r[1]), 10)
			line(2)
			b = append(b, ']')
		}
		if len(h.Highlights) > 0 {
			line(1)
		}
		b = append(b, ']')
	}
	line(0)
	return append(b, '}'), nil
}

// appendJSONFloat is encoding/json's encoding of a finite float64: the
// shortest decimal that reads back, in exponent form below 1e-6 and from
// 1e21 on, its exponent without a leading zero.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
