package mcpserver

import (
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

// newService is a store of its own with a signing key, in a temp dir.
func newService(t *testing.T) *service.Service {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"config", "user.name", "T"}, {"config", "user.email", "t@example.com"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	svc := openService(t, dir)
	if _, err := svc.Init(service.InitRequest{GenerateKey: true, Agent: "t"}); err != nil {
		t.Fatal(err)
	}
	return svc
}

// openService opens the store in dir again, as another process would.
func openService(t *testing.T, dir string) *service.Service {
	t.Helper()
	svc, err := service.Open(dir, service.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return svc
}

func create(t *testing.T, svc *service.Service, id, title string) {
	t.Helper()
	if _, err := svc.Create(kernel.CreateInput{ID: id, Type: "concept", Category: "c", Title: title, Body: "b",
		Provenance: kernel.Provenance{Agent: "t"}}, kernel.Approval{}); err != nil {
		t.Fatal(err)
	}
}

// TestResourceListPages: resources/list is answered from the index a page
// at a time, each page resuming after the cursor of the one before, every
// record listed once and in id order; a record created, or retitled, is
// announced with resources/list_changed and listed as it is now.
func TestResourceListPages(t *testing.T) {
	defer func(n int) { listPage = n }(listPage)
	listPage = 3
	svc := newService(t)
	var want []string
	for i := range 8 {
		id := fmt.Sprintf("rec-%d", i)
		create(t, svc, id, "Record "+id)
		want = append(want, "records://"+id)
	}
	srv := New(svc, Options{Agent: "t", Poll: 10 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, ct := mcp.NewInMemoryTransports()
	go srv.Run(ctx, st)
	changed := make(chan struct{}, 16)
	session, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- struct{}{} },
	}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()

	list := func() (uris, titles []string, pages int) {
		t.Helper()
		cursor := ""
		for {
			res, err := session.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			pages++
			if len(res.Resources) > listPage {
				t.Fatalf("a page of %d resources, at most %d wanted", len(res.Resources), listPage)
			}
			for _, r := range res.Resources {
				uris, titles = append(uris, r.URI), append(titles, r.Title)
			}
			if cursor = res.NextCursor; cursor == "" {
				return uris, titles, pages
			}
		}
	}
	uris, _, pages := list()
	if fmt.Sprint(uris) != fmt.Sprint(want) || pages != 3 {
		t.Fatalf("listed %v in %d pages, want %v in 3", uris, pages, want)
	}

	drain := func() {
		for len(changed) > 0 {
			<-changed
		}
	}
	waitChanged := func(why string) {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(10 * time.Second):
			t.Fatalf("no resources/list_changed after %s", why)
		}
	}
	// Another process writes (the server's own store is its own).
	other := openService(t, svc.WorkDir)
	drain()
	create(t, other, "rec-10", "Record ten")
	waitChanged("a create")
	uris, titles, _ := list()
	if len(uris) != 9 || uris[2] != "records://rec-10" || titles[2] != "Record ten" {
		t.Fatalf("after a create: %v %v", uris, titles)
	}
	drain()
	title := "Record ten, retitled"
	if _, err := other.Update("rec-10", kernel.UpdateFields{Title: &title}, kernel.Evidence{Agent: "t"}, kernel.Approval{}); err != nil {
		t.Fatal(err)
	}
	waitChanged("a new title")
	if _, titles, _ := list(); titles[2] != title {
		t.Fatalf("after a new title the list says %q", titles[2])
	}
}
