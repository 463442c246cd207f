package source

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/vocab"
)

// TestTranslateEdges pins Translate at the ends of its argument lists
// (options without a value or a package as the last argument, "--" last),
// the "/c" form only for cmd, and which secrets a docker command keeps.
// Each case kills a mutant of launcher.go that TestTranslate left alive
// (issue 26; docs/testing.md).
func TestTranslateEdges(t *testing.T) {
	refused := []struct {
		name    string
		command string
		args    []string
		want    string // part of the error
	}{
		// scanFlags' loop reaching the end, "--" last, an option's value
		// missing at the end (launcher.go:122, :125, :140: reading one
		// argument past the end panicked).
		{"npx only options", "npx", []string{"-y"}, "no package named"},
		{"npx -- last", "npx", []string{"-y", "--"}, "no package named"},
		{"npx --registry last", "npx", []string{"-y", "--registry"}, "option --registry needs a value"},
		{"uvx --from last", "uvx", []string{"--from"}, "option --from needs a value"},
		// dockerLauncher's loop (launcher.go:242, :257).
		{"docker only options", "docker", []string{"run", "-i", "--rm"}, "no image named"},
		{"docker -e last", "docker", []string{"run", "-i", "-e"}, "option -e needs a value"},
		// A PyPI spec that starts with its version separator names no
		// package (launcher.go:211); it is refused, not translated with the
		// separator in the name or with an empty name.
		{"uvx ==version", "uvx", []string{"==1.0"}, "not a plain PyPI package"},
		{"uvx @version", "uvx", []string{"@1.0"}, "not a plain PyPI package"},
		{"uvx empty", "uvx", []string{""}, "not a plain PyPI package"},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			plan := vocab.Plan{Transport: vocab.TransportStdio, Command: tc.command, Args: tc.args}
			ok, _, err := Translate(&plan)
			if ok || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Translate(%s %q) = %v, %v; want refused with %q", tc.command, tc.args, ok, err, tc.want)
			}
			if plan.Command != tc.command || plan.Package != nil {
				t.Errorf("plan changed: %+v", plan)
			}
		})
	}

	// "/c" is cmd's: another command whose first argument is "/c" is no
	// launcher (launcher.go:55, the second comparison).
	if l, rest := launcherOf("node", []string{"/c", "npx", "pkg"}); l != "" || rest != nil {
		t.Errorf(`launcherOf("node", "/c npx pkg") = %q, %q; want no launcher`, l, rest)
	}

	// docker keeps the secrets its command passes by name, in each form
	// (-e NAME, --env NAME, -e=NAME, --env=NAME), and drops the others;
	// a secret passed by name without a value is not put in the
	// environment, and a container given no variable gets no environment
	// at all (nil, not an empty map: launcher.go:291). An argument "-e"
	// last (here the server's own) is not read past (launcher.go:311).
	t.Run("docker secrets", func(t *testing.T) {
		plan := vocab.Plan{
			Transport: vocab.TransportStdio, Command: "docker",
			Args:    []string{"run", "-i", "-e", "A_TOKEN", "--env", "B_TOKEN", "-e=C_TOKEN", "--env=D_TOKEN", "img", "--stdio", "-e"},
			Env:     map[string]string{"UNRELATED": "x"},
			Secrets: []string{"A_TOKEN", "B_TOKEN", "C_TOKEN", "D_TOKEN", "E_TOKEN"},
		}
		ok, _, err := Translate(&plan)
		if !ok || err != nil {
			t.Fatalf("Translate = %v, %v", ok, err)
		}
		if diff := cmp.Diff([]string{"A_TOKEN", "B_TOKEN", "C_TOKEN", "D_TOKEN"}, plan.Secrets); diff != "" {
			t.Errorf("secrets (-want +got):\n%s", diff)
		}
		if plan.Env != nil {
			t.Errorf("env = %#v, want nil", plan.Env)
		}
		if diff := cmp.Diff([]string{"--stdio", "-e"}, plan.Args); diff != "" {
			t.Errorf("args (-want +got):\n%s", diff)
		}
	})
}
