package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// unstoredFlags are the scan flags --resume does not take from the stored
// scan: where the results go, the resume itself, and values that may be
// secrets (--env, --header), which are never written to the database;
// give them again with --resume.
var unstoredFlags = map[string]bool{"db": true, "resume": true, "env": true, "header": true, "help": true, "quiet": true, "timeout": true}

// sourceFlags name where a new scan's targets come from; a resumed scan
// takes them from the database.
var sourceFlags = map[string]bool{"registry": true, "from": true, "config": true}

// recordFlags returns every stored scan flag with its value, so that
// --resume continues the scan with the options it started with.
func recordFlags(fs *pflag.FlagSet) map[string]any {
	out := map[string]any{}
	fs.VisitAll(func(f *pflag.Flag) {
		if unstoredFlags[f.Name] {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			out[f.Name] = sv.GetSlice()
			return
		}
		out[f.Name] = f.Value.String()
	})
	return out
}

// restoreFlags sets the flags of a resumed scan from stored (the "flags"
// object of its options). A flag given on the command line with another
// value than the stored one is refused with one line naming it.
func restoreFlags(fs *pflag.FlagSet, stored map[string]json.RawMessage) error {
	names := make([]string, 0, len(stored))
	for k := range stored {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		f := fs.Lookup(name)
		if f == nil || unstoredFlags[name] || sourceFlags[name] {
			continue
		}
		raw := stored[name]
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			var list []string
			if err := json.Unmarshal(raw, &list); err != nil {
				return fmt.Errorf("--resume: stored option %s is unreadable: %v", name, err)
			}
			if f.Changed && !slices.Equal(sv.GetSlice(), list) {
				return usagef("--resume: --%s %s conflicts with the scan's stored --%s %s; drop --%s (a resumed scan keeps its options)",
					name, strings.Join(sv.GetSlice(), ","), name, strings.Join(list, ","), name)
			}
			if err := sv.Replace(list); err != nil {
				return fmt.Errorf("--resume: restoring --%s: %v", name, err)
			}
			continue
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("--resume: stored option %s is unreadable: %v", name, err)
		}
		if f.Changed && f.Value.String() != v {
			return usagef("--resume: --%s %s conflicts with the scan's stored --%s %s; drop --%s (a resumed scan keeps its options)",
				name, f.Value.String(), name, v, name)
		}
		if err := f.Value.Set(v); err != nil {
			return fmt.Errorf("--resume: restoring --%s %q: %v", name, v, err)
		}
	}
	return nil
}
