package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

// execRecords is how many execution records BenchmarkContinue adds to each
// seeded store: a session's open work plus closed history.
const execRecords = 60

// BenchmarkContinue: `git records continue --owner S` (the carry-over of a
// session: its open execution records, parents and children) on stores of
// every size holding the same execution records. Its cost follows the
// execution records, not the store, so continue@10k / continue@1k stays
// near the baseline's ratio. The baseline reads the same records with git:
// `git ls-tree -r` of the execution types' directories and `git cat-file
// --batch` of their blobs.
//
//   - continue: one process, Markdown out
//   - git-ls-tree-cat-file: the two git processes, the second fed the first's blob ids
func BenchmarkContinue(b *testing.B) {
	bin := bin(b)
	var ops []op
	for _, f := range stores(b, "packed") {
		s := openStore(b, f)
		svc := service.New(s, f.dir)
		run, err := svc.StartExecution(kernel.StartInput{Type: kernel.TypeRun, Title: "Bench run", Agent: "bench", Session: "s-bench"}, service.BindOptions{}, kernel.Approval{})
		if err != nil {
			b.Fatal(err)
		}
		for i := 1; i < execRecords; i++ {
			keep := i%3 != 0
			in := kernel.StartInput{Type: kernel.TypeChildRun, Title: fmt.Sprintf("Child %d", i), Agent: "bench", Session: "s-bench", ParentJob: run.ID, CleanupOnRunEnd: &keep}
			if _, err := svc.StartExecution(in, service.BindOptions{}, kernel.Approval{}); err != nil {
				b.Fatal(err)
			}
		}
		if _, _, err := svc.EndRun(run.ID, kernel.ExecCompleted, kernel.ManageInput{Agent: "bench", Session: "s-bench"}, service.BindOptions{}, kernel.Approval{}); err != nil {
			b.Fatal(err)
		}
		s.Close()
		ops = append(ops,
			op{"continue" + f.label, func(int) time.Duration {
				return timed(func() { mustRun(b, f.dir, nil, nil, bin, "continue", "--owner", "s-bench") })
			}},
			op{"git-ls-tree-cat-file" + f.label, func(int) time.Duration {
				return timed(func() {
					tree := mustRun(b, f.dir, nil, nil, "git", "ls-tree", "-r", "--format=%(objectname)", "refs/heads/records",
						"records/"+kernel.TypeRun+"/", "records/"+kernel.TypeChildRun+"/")
					mustRun(b, f.dir, []byte(tree), nil, "git", "cat-file", "--batch")
				})
			}},
		)
	}
	b.ResetTimer()
	interleave(b, ops...)
}
