package transfer

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"
)

// sourceKind is the tool a folder of notes was written with, told by the
// files that tool keeps at its root, and what of its conventions the
// import follows.
type sourceKind struct {
	Name string // obsidian, zk, foam, dendron, hugo, jekyll, or notes
	// ColonTags: zk's :tag1:tag2: are tags (its notebook enables them).
	ColonTags bool
	// LabelFirst: a wikilink is [[label|target]] (Dendron), not
	// [[target|label]].
	LabelFirst bool
	// Taxonomies are the front matter keys whose values are tags (Hugo's
	// configured taxonomies, Jekyll's tags and categories).
	Taxonomies []string
	// URLAliases: the aliases key holds the site's old URLs (Hugo), not
	// other names of the note.
	URLAliases bool
}

// maxConfigFile bounds a tool's configuration file read for its settings.
const maxConfigFile = 1 << 20

// detectKind tells a source's kind by its root's files: .obsidian/, .zk/,
// dendron.yml, .foam/ or .vscode/foam.json, a Hugo configuration
// (hugo.toml, config.toml, ... beside content/), Jekyll's _config.yml.
func detectKind(root string) sourceKind {
	at := func(name string) string { return filepath.Join(root, name) }
	switch {
	case isDir(at(".obsidian")):
		return kindNamed("obsidian")
	case isDir(at(".zk")):
		k := kindNamed("zk")
		var conf struct {
			Format struct {
				Markdown struct {
					ColonTags bool `toml:"colon-tags"`
				} `toml:"markdown"`
			} `toml:"format"`
		}
		if data, ok := readConfig(at(".zk/config.toml")); ok && toml.Unmarshal(data, &conf) == nil {
			k.ColonTags = conf.Format.Markdown.ColonTags
		}
		return k
	case exists(at("dendron.yml")):
		return kindNamed("dendron")
	case isDir(at(".foam")) || exists(at(".vscode/foam.json")) || recommendsFoam(at(".vscode/extensions.json")):
		return kindNamed("foam")
	}
	for _, name := range []string{"hugo.toml", "hugo.yaml", "hugo.json", "config.toml", "config.yaml", "config.json"} {
		if exists(at(name)) && (isDir(at("content")) || strings.HasPrefix(name, "hugo.")) {
			k := kindNamed("hugo")
			k.Taxonomies = hugoTaxonomies(at(name))
			return k
		}
	}
	if exists(at("_config.yml")) {
		return kindNamed("jekyll")
	}
	return kindNamed("notes")
}

// kindNamed is the tool called name with its default settings (those its
// configuration may change: zk's colon tags, Hugo's taxonomies); an
// unknown name is notes.
func kindNamed(name string) sourceKind {
	switch name {
	case "obsidian", "zk", "foam":
		return sourceKind{Name: name}
	case "dendron":
		return sourceKind{Name: name, LabelFirst: true}
	case "hugo":
		return sourceKind{Name: name, Taxonomies: []string{"tags", "categories"}, URLAliases: true}
	case "jekyll":
		return sourceKind{Name: name, Taxonomies: []string{"tags", "categories", "category"}}
	}
	return sourceKind{Name: "notes"}
}

// kindOfSource is the tool an import's source says (its Evidence-Source
// and each record's import evidence, "obsidian vault notes"): obsidian,
// zk, foam, dendron, hugo, jekyll, or notes. Export reads it to write a
// vault that tool opens as its own.
func kindOfSource(source string) string {
	tool, rest, _ := strings.Cut(source, " ")
	if strings.HasPrefix(rest, FormatVault+" ") && kindNamed(tool).Name == tool {
		return tool
	}
	return "notes"
}

// hugoTaxonomies are the front matter keys of a Hugo site's taxonomies:
// its configuration's [taxonomies] values, else Hugo's default (tags,
// categories).
func hugoTaxonomies(configFile string) []string {
	out := []string{"tags", "categories"}
	data, ok := readConfig(configFile)
	if !ok {
		return out
	}
	var conf struct {
		Taxonomies map[string]string `toml:"taxonomies" yaml:"taxonomies" json:"taxonomies"`
	}
	var err error
	switch filepath.Ext(configFile) {
	case ".toml":
		err = toml.Unmarshal(data, &conf)
	case ".yaml":
		err = yaml.Unmarshal(data, &conf)
	case ".json":
		err = json.Unmarshal(data, &conf)
	}
	if err != nil || len(conf.Taxonomies) == 0 {
		return out
	}
	out = out[:0]
	for _, plural := range sortedKeysByValue(conf.Taxonomies) {
		out = append(out, plural)
	}
	return out
}

func sortedKeysByValue(m map[string]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range sortedKeys(m) {
		if v := strings.ToLower(m[k]); v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// readConfig reads a tool's configuration file, if it is a regular file
// within bounds.
func readConfig(p string) ([]byte, bool) {
	data, err := readBounded(p)
	if err != nil || len(data) > maxConfigFile {
		return nil, false
	}
	return data, true
}

// recommendsFoam: a workspace whose VS Code recommendations name Foam's
// extension (foam.foam-vscode), as Foam's template does.
func recommendsFoam(extensionsFile string) bool {
	data, ok := readConfig(extensionsFile)
	return ok && bytes.Contains(data, []byte(`"foam.foam-vscode"`))
}
