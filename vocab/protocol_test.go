package vocab

import (
	"slices"
	"strings"
	"testing"
)

func TestProtocolVersionsNewestFirst(t *testing.T) {
	if !slices.IsSortedFunc(ProtocolVersions, func(a, b string) int { return strings.Compare(b, a) }) {
		t.Errorf("ProtocolVersions = %v, want newest first", ProtocolVersions)
	}
	if len(slices.Compact(slices.Clone(ProtocolVersions))) != len(ProtocolVersions) {
		t.Errorf("ProtocolVersions = %v has a duplicate", ProtocolVersions)
	}
	for _, tc := range []struct {
		v    string
		want bool
	}{
		{Protocol20241105, true},
		{Protocol20260728, true},
		{"2025-06-19", false},
		{"", false},
	} {
		if got := KnownProtocol(tc.v); got != tc.want {
			t.Errorf("KnownProtocol(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

func TestStatusesListEachStatusOnce(t *testing.T) {
	seen := map[Status]bool{}
	for _, s := range Statuses {
		if seen[s.Status] {
			t.Errorf("%s listed twice", s.Status)
		}
		seen[s.Status] = true
		if s.Meaning == "" {
			t.Errorf("%s has no meaning", s.Status)
		}
	}
	for _, s := range []Status{StatusOK, StatusSpawnFailed, StatusExitedEarly, StatusMissingCredentials, StatusHandshakeTimeout,
		StatusProtocolError, StatusStdoutPollution, StatusUnreachable, StatusNeedsConfiguration, StatusRuntimeUnavailable,
		StatusPackageNotFound, StatusVersionNotFound, StatusInstallFailed, StatusInvalidPlan, StatusLimitExceeded} {
		if !seen[s] {
			t.Errorf("Statuses lacks %s", s)
		}
	}
	if len(Statuses) != 15 {
		t.Errorf("Statuses has %d entries, want the 15 constants", len(Statuses))
	}
}
