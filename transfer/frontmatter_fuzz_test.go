package transfer

import "testing"

// FuzzParseNote: reading a note never panics, whatever its front matter
// (a panic would end the whole import). Plain go test runs the seeds;
// go test -fuzz FuzzParseNote ./transfer/ searches further.
func FuzzParseNote(f *testing.F) {
	for _, seed := range []string{
		"+++\ntitle = \"a\"\ntags = [\"x\", \"y\"]\ndate = 1979-05-27T07:32:00Z\n[source]\nurl = \"u\"\n+++\nbody\n",
		"+++\na.b.c = 1\nd = {e = [1, 2.5, true], f.g = 'h'}\n[[t]]\nx = \"\"\"\nm\n\"\"\"\n+++\nbody\n",
		"---toml\ntitle = \"b\"\nt = 07:32:00\nd = 1979-05-27\n---\nbody\n",
		"+++\na = {# x\n}\n+++\nbody\n", // toml v0.3.1 panicked on these two
		"+++\n0={0=[]#0={1=[],0\n+++",
		"---\ntitle: a\ntags: [x, y]\ndate: 2024-01-02\nnested: {a: [1, {b: c}]}\n---\nbody\n",
		"---\n&a x: *a\n? [1]\n: |\n  text\n---\nbody\n",
		";;;\n{\"title\": \"a\", \"n\": [1, {\"b\": null}]}\n;;;\nbody\n",
		"{\n\"title\": \"a\"\n}\nbody\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		parseNote("fuzz.md", data, false)
	})
}
