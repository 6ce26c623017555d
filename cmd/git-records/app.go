package main

import (
	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/pkg/cmdutil"
)

// Exit codes, as the black-box tests of this package name them. Every
// command now lives in pkg/cmd (docs/design.md, the command layer).
const (
	exitOK       = cmdutil.ExitOK
	exitRefused  = cmdutil.ExitRefused
	exitUsage    = cmdutil.ExitUsage
	exitConflict = cmdutil.ExitConflict
	exitDenied   = cmdutil.ExitDenied
	exitSetup    = cmdutil.ExitSetup
	exitInternal = cmdutil.ExitInternal
)

func exitCode(code kernel.Code) int { return cmdutil.ExitCode(code) }
