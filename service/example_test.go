package service_test

import (
	"fmt"
	"os"
	"os/exec"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

// Example walks the README's five minutes through the library: a records
// branch with its own signing key, two records linked by a wikilink, reads
// by alias, an update, the record's history, and verify.
func Example() {
	dir, err := os.MkdirTemp("", "records-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	git := func(args ...string) {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			panic(fmt.Sprintf("git %v: %v\n%s", args, err, out))
		}
	}
	git("init", "-q")
	git("config", "user.name", "Alice")
	git("config", "user.email", "alice@example.com")

	// git records init --generate-key
	svc, err := service.Open(dir, service.Options{})
	if err != nil {
		panic(err)
	}
	defer svc.Close()
	if _, err := svc.Init(service.InitRequest{GenerateKey: true, Agent: "alice"}); err != nil {
		panic(err)
	}

	// git records create … (twice); the second links the first from its body.
	must(svc.Create(kernel.CreateInput{ID: "rfc-6749", Type: "raw", Category: "auth.standards",
		Title: "RFC 6749: OAuth 2.0", Body: "Section 10.4: refresh tokens may rotate.",
		Provenance: kernel.Provenance{Agent: "alice"}}, kernel.Approval{}))
	policy := must(svc.Create(kernel.CreateInput{Type: "concept", Category: "auth.tokens",
		Aliases: []string{"auth/token-refresh"}, Title: "Token refresh policy",
		Body:       "Refresh tokens rotate on every use, as [[rfc-6749|the RFC]] allows.",
		Provenance: kernel.Provenance{Agent: "alice"}}, kernel.Approval{}))

	// git records show auth/token-refresh
	r, err := svc.Show("auth/token-refresh")
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Title, "is", r.ID == policy.ID)

	// git records links rfc-6749
	links, err := svc.Links("rfc-6749")
	if err != nil {
		panic(err)
	}
	for _, e := range links.Reverse {
		fmt.Println("backlink from", e.Source == policy.ID, "kind", e.Kind, "label", e.Label)
	}

	// git records update auth/token-refresh --title … --note …
	title := "Token refresh and reuse"
	must(svc.Update("auth/token-refresh", kernel.UpdateFields{Title: &title},
		kernel.Evidence{Agent: "bob", Note: "after review"}, kernel.Approval{}))

	// git records log auth/token-refresh
	history, err := svc.Log(service.LogQuery{Handle: "auth/token-refresh"})
	if err != nil {
		panic(err)
	}
	for _, e := range history {
		fmt.Println(e.Op, e.Agent, e.Signature, e.Subject)
	}

	// git records verify
	report, err := svc.Verify("", service.VerifyOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println("verified", report.Commits, "commits, ok:", report.OK, len(report.Violations), "violations")

	// Output:
	// Token refresh policy is true
	// backlink from true kind related label the RFC
	// update bob good update(concept): Token refresh and reuse
	// create alice good create(concept): Token refresh policy
	// verified 4 commits, ok: true 0 violations
}

func must(res *service.WriteResult, err error) *service.WriteResult {
	if err != nil {
		panic(err)
	}
	return res
}
