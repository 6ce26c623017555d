package main

import (
	"github.com/git-records/git-records/gitstore"
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmd/record"
	"github.com/git-records/git-records/pkg/cmdutil"
	"github.com/git-records/git-records/service"
)

// Helpers the commands not yet moved share with pkg/cmd.

func describeEnd(v *gitstore.View, id, label string) string { return record.DescribeEnd(v, id, label) }

func oneOf(flag, value string, allowed []string) error { return cmdutil.OneOf(flag, value, allowed) }

func names[T ~string](values []T) []string { return cmdutil.Names(values) }

func oneLine(s string) string { return service.OneLine(s) }

func handleFor(v kernel.View, id string) string { return service.HandleFor(v, id) }

func listedStatus(v *gitstore.View, id string, status kernel.Status) string {
	return service.ListedStatus(v, id, status)
}
