package sandbox

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpvet/mcpvet/vocab"
)

// TestBuildEnv pins buildEnv's rules one by one: only PATH, HOME and LANG
// come from the host (with defaults when unset), then the package's
// variables (invalid ones dropped), the plan's (invalid ones refused), a
// canary per secret nobody set, the user's overrides last, sorted.
func TestBuildEnv(t *testing.T) {
	t.Setenv("MCPVET_TEST_HOST_ONLY", "host")
	canaryOf := func(env []string, k string) string {
		v := lookEnv(env, k)
		if !strings.HasPrefix(v, canaryPrefix) || len(v) != len(canaryPrefix)+16 {
			t.Errorf("%s = %q, want a canary", k, v)
		}
		return v
	}
	t.Run("host defaults", func(t *testing.T) {
		t.Setenv("PATH", "")
		t.Setenv("LANG", "")
		env, canaries, err := buildEnv(&vocab.Plan{}, nil, nil, "/h")
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"HOME=/h", "LANG=C.UTF-8", "PATH=" + defaultPath}
		if diff := cmp.Diff(want, env); diff != "" {
			t.Errorf("env (-want +got):\n%s", diff)
		}
		if len(canaries) != 0 {
			t.Errorf("canaries = %v, want none", canaries)
		}
	})
	t.Run("host values and layering", func(t *testing.T) {
		t.Setenv("PATH", "/p")
		t.Setenv("LANG", "de_DE.UTF-8")
		plan := &vocab.Plan{
			Env:     map[string]string{"PLAN": "plan", "BOTH": "plan", "SET_SECRET": "plan"},
			Secrets: []string{"API_KEY", "SET_SECRET", "USER_SECRET", vocab.SecretHeaderPrefix + "Authorization"},
		}
		pkg := map[string]string{"PKG": "pkg", "BOTH": "pkg", "": "x", "A=B": "x", "NUL": "a\x00b"}
		user := map[string]string{"BOTH": "user", "USER_SECRET": "u", "PATH": "/user"}
		env, canaries, err := buildEnv(plan, pkg, user, "/h")
		if err != nil {
			t.Fatal(err)
		}
		c := canaryOf(env, "API_KEY")
		want := []string{"API_KEY=" + c, "BOTH=user", "HOME=/h", "LANG=de_DE.UTF-8", "PATH=/user", "PKG=pkg", "PLAN=plan", "SET_SECRET=plan", "USER_SECRET=u"}
		if diff := cmp.Diff(want, env); diff != "" {
			t.Errorf("env (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(map[string]string{"API_KEY": c}, canaries); diff != "" {
			t.Errorf("canaries (-want +got):\n%s", diff)
		}
	})
	t.Run("canaries differ per secret and per call", func(t *testing.T) {
		plan := &vocab.Plan{Secrets: []string{"A", "B"}}
		env1, _, err := buildEnv(plan, nil, nil, "/h")
		if err != nil {
			t.Fatal(err)
		}
		env2, _, err := buildEnv(plan, nil, nil, "/h")
		if err != nil {
			t.Fatal(err)
		}
		a, b, a2 := canaryOf(env1, "A"), canaryOf(env1, "B"), canaryOf(env2, "A")
		if a == b || a == a2 {
			t.Errorf("canaries repeat: %q %q %q", a, b, a2)
		}
	})
	for _, tt := range []struct {
		name     string
		plan     vocab.Plan
		user     map[string]string
		wantPlan bool // a LaunchError with vocab.StatusInvalidPlan, else a plain error
		want     string
	}{
		{name: "plan variable with =", plan: vocab.Plan{Env: map[string]string{"A=B": "x"}}, wantPlan: true, want: `invalid environment variable "A=B"`},
		{name: "plan variable empty name", plan: vocab.Plan{Env: map[string]string{"": "x"}}, wantPlan: true, want: `invalid environment variable ""`},
		{name: "plan value with NUL", plan: vocab.Plan{Env: map[string]string{"A": "a\x00"}}, wantPlan: true, want: `invalid environment variable "A"`},
		{name: "secret name with NUL", plan: vocab.Plan{Secrets: []string{"K\x00"}}, wantPlan: true, want: `invalid secret name "K\x00"`},
		{name: "override name with =", user: map[string]string{"A=B": "x"}, want: `building environment: invalid override "A=B"`},
		{name: "override value with NUL", user: map[string]string{"A": "\x00"}, want: `building environment: invalid override "A"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env, _, err := buildEnv(&tt.plan, nil, tt.user, "/h")
			if err == nil {
				t.Fatalf("no error; env %q", env)
			}
			var le *LaunchError
			if errors.As(err, &le) != tt.wantPlan || (tt.wantPlan && le.Status != vocab.StatusInvalidPlan) {
				t.Errorf("error %v (%T), want a launch error with %s: %v", err, err, vocab.StatusInvalidPlan, tt.wantPlan)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLookEnv(t *testing.T) {
	env := []string{"AB=1", "A=2=3", "NOEQUALS", "EMPTY="}
	for key, want := range map[string]string{"A": "2=3", "AB": "1", "EMPTY": "", "NOEQUALS": "", "MISSING": "", "": ""} {
		if got := lookEnv(env, key); got != want {
			t.Errorf("lookEnv(%q) = %q, want %q", key, got, want)
		}
	}
}
