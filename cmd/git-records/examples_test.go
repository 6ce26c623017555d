package main

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"

	"github.com/git-records/git-records/pkg/cmd/root"
	"github.com/git-records/git-records/pkg/cmdutil"
)

// TestEveryCommandHasAnExample: the help of every command people run
// (hidden ones and cobra's own help and completion aside) shows how to
// use it.
func TestEveryCommandHasAnExample(t *testing.T) {
	streams, _, _, _ := cmdutil.Test()
	f := cmdutil.New(streams)
	var walk func(c *cobra.Command)
	seen := 0
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			seen++
			assert.NotEmpty(t, sub.Example, "git records %s has no Example", sub.CommandPath())
			walk(sub)
		}
	}
	walk(root.NewCmdRoot(f))
	assert.Greater(t, seen, 60, "every command was walked")
}
