// Package extension holds what the extension commands (bindings, inspect)
// and the commands that run under bindings (exec) share: the per-call
// binding flags, and how a binding's source is described.
package extension

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/git-records/git-records/kernel"
	"github.com/git-records/git-records/service"
)

// BindFlags adds a run's per-call binding choices to a command.
func BindFlags(c *cobra.Command, binds *[]string, opts *service.BindOptions) {
	c.Flags().StringArrayVar(binds, "bind", nil, "bind `SLOT=IMPLEMENTATION` for this call (over the project file and the default; repeatable)")
	c.Flags().StringArrayVar(&opts.Fallback, "fallback", nil, "`SLOT` whose bound implementation failed: fall back to its default, recorded in provenance (repeatable)")
	c.Flags().StringVar(&opts.From, "bindings-from", "", "resume with exactly the binding manifest of `COMMIT`")
}

// ParseBinds reads --bind SLOT=IMPLEMENTATION flags.
func ParseBinds(binds []string, opts *service.BindOptions) error {
	opts.Flags = map[string]string{}
	for _, b := range binds {
		slot, impl, ok := strings.Cut(b, "=")
		if !ok || slot == "" || impl == "" {
			return kernel.Errorf(kernel.CodeUsage, "--bind %q is not SLOT=IMPLEMENTATION", b).WithExtra("flag", "--bind")
		}
		opts.Flags[slot] = impl
	}
	return nil
}

// DescribeSource says where a binding came from.
func DescribeSource(u kernel.BindingUse) string {
	switch {
	case u.Source == kernel.SourceFallback:
		return "fallback-to-default (" + u.Failed + " failed)"
	case u.From != "":
		return u.Source + " from " + u.From
	}
	return u.Source
}
