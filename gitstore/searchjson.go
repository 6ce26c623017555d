package gitstore

import (
	"encoding/json"
	"math"

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
	w := kernel.NewJSONWriter(dst, prefix, indent)
	w.Open('{')
	w.Str("id", h.ID)
	w.Str("title", h.Title)
	w.Str("type", h.Type)
	if h.Category != "" {
		w.Str("category", h.Category)
	}
	w.Str("status", string(h.Status))
	w.Key("score")
	w.Float(h.Score)
	w.Key("matched")
	if h.Matched == nil {
		w.Null()
	} else {
		w.Open('[')
		for _, m := range h.Matched {
			w.Elem()
			w.String(m)
		}
		w.Close(']')
	}
	w.Str("snippet", h.Text)
	w.Key("highlights")
	if h.Highlights == nil {
		w.Null()
	} else {
		w.Open('[')
		for _, r := range h.Highlights {
			w.Elem()
			w.Open('[')
			w.Elem()
			w.Int(int64(r[0]))
			w.Elem()
			w.Int(int64(r[1]))
			w.Close(']')
		}
		w.Close(']')
	}
	w.Close('}')
	return w.Bytes(), nil
}
