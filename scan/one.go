package scan

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpvet/mcpvet/internal/safe"
	"github.com/mcpvet/mcpvet/internal/timeline"
	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/sandbox"
	"github.com/mcpvet/mcpvet/scoring"
	"github.com/mcpvet/mcpvet/vocab"
)

// Prewarm starts the sandbox's availability check in the background (see
// [sandbox.Prewarm]), for a caller about to probe with o.
func Prewarm(o *ProbeOptions) {
	if o != nil {
		sandbox.Prewarm(o.Sandbox)
	}
}

// ProbeOptions configures [Probe].
type ProbeOptions struct {
	// Sandbox configures isolation, limits and installs.
	Sandbox *sandbox.Options
	// Run is the template of each server's [probe.Options]; Target,
	// Process and Relaunch are filled in per server.
	Run probe.Options
	// Timeout bounds one server from launch to teardown (default
	// [DefaultServerTimeout]). It is the one source of the server's wall
	// time: [Probe] sets Sandbox.Limits.Wall from it, so the sandbox kills
	// the server when its probe's deadline ends. The package install
	// before it has its own deadline, Sandbox.InstallTimeout.
	Timeout time.Duration
	// Policy decides verdicts; nil uses [scoring.DefaultPolicy]. Grading
	// happens here, not in probe, so that probe stays free of policy and
	// the grader sees the sandbox's secret canaries.
	Policy *scoring.Policy
	// Installing, when set, is told before a package is installed (its
	// registry type, name and version) and returns the function told when
	// the install ends, with its error and time: the CLI shows a first
	// install, which takes seconds to minutes, on a terminal.
	Installing func(pkg string) func(err error, took time.Duration)
}

// DefaultServerTimeout is the default of [ProbeOptions.Timeout].
const DefaultServerTimeout = 2 * time.Minute

// Probe launches one plan in the sandbox, probes it and tears it down. The
// error is non-nil only for infrastructure failures (the sandbox itself
// could not be set up); everything the server does, including failing to
// install or start, is in the result.
func Probe(ctx context.Context, plan *vocab.Plan, opts *ProbeOptions) (*probe.Result, error) {
	res, torn, err := probeOnce(ctx, plan, opts, true)
	torn()
	return res, err
}

// probeOnce is [Probe], except that the sandbox may still be tearing the
// server's launches down (cgroups, the run folder) when it returns: torn
// waits for that. The teardown needs nothing from the result, so the
// result is graded and stored meanwhile (issue 25, probe cost). With
// recheck, a server that failed to start under a sandbox chosen on an
// availability pass saved by an earlier process (see [sandbox.Recheck]) is
// probed once more, after a real check.
func probeOnce(ctx context.Context, plan *vocab.Plan, opts *ProbeOptions, recheck bool) (res *probe.Result, torn func(), err error) {
	res, torn, err = probeOnceTorn(ctx, plan, opts, recheck)
	if torn == nil {
		torn = func() {}
	}
	return res, torn, err
}

// probeOnceTorn is probeOnce; torn is nil when nothing is left to tear
// down.
func probeOnceTorn(ctx context.Context, plan *vocab.Plan, opts *ProbeOptions, recheck bool) (*probe.Result, func(), error) {
	outer := ctx
	var o ProbeOptions
	if opts != nil {
		o = *opts
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultServerTimeout
	}
	var so sandbox.Options
	if o.Sandbox != nil {
		so = *o.Sandbox
	}
	so.Limits.Wall = o.Timeout
	o.Sandbox = &so
	policy := o.Policy
	if policy == nil {
		policy = scoring.DefaultPolicy()
	}
	target := TargetOf(plan)
	start := time.Now()
	if plan.Status != "" {
		return grade(withNotes(preLaunch(target, plan.Status, plan.StatusDetail, "", start), plan), nil, policy), nil, nil
	}
	if err := unreachableRemote(ctx, plan, o.Sandbox); err != nil {
		return grade(unreachableResult(plan, err, start), nil, policy), nil, nil
	}
	// The install runs under its own deadline, before the server's starts:
	// a slow download does not eat the server's time.
	if res, done, err := installStep(ctx, plan, &o); done {
		return res, nil, err
	}
	timeline.Mark("install check done")
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	ls := &launches{plan: plan, opts: o.Sandbox}
	// torn is set once the teardown runs in the background; until then
	// it happens here, on the way out, as it always did: the launches
	// closed, then their context.
	var torn func()
	defer func() {
		if torn == nil {
			ls.close()
			timeline.Mark("sandbox closed")
			cancel()
		}
	}()
	t, err := ls.launch(ctx)
	if err != nil {
		var le *sandbox.LaunchError
		if errors.As(err, &le) {
			return grade(withNotes(preLaunch(target, le.Status, le.Detail, le.Evidence, start), plan), nil, policy), nil, nil
		}
		return nil, nil, err
	}
	timeline.Mark("sandbox launched")
	first := ls.latest()
	info := first.Info(0)
	target.Sandbox = info.Backend
	if v := info.InstalledVersion; v != "" && (plan.Package == nil || v != plan.Package.Version) {
		target.InstalledVersion = v
	}
	target.SDK, target.SDKEvidence = info.SDK, info.SDKEvidence

	po := o.Run
	po.Target = target
	po.Process = func(wait time.Duration) probe.ProcessInfo { return processInfo(ls.latest().Info(wait)) }
	po.Relaunch = ls.launch
	if c := first.HTTPClient(); c != nil {
		po.HTTPClient = c
	}
	// The answers are graded while the server shuts down: their grades
	// read only the probes, the listings and the canaries, all final once
	// the last request is answered (issue 25, probe cost). Should the
	// canaries differ afterwards, the answers are graded again below.
	var early struct {
		canaries map[string]string
		graded   []scoring.Graded
	}
	po.Closing = func(r *probe.Result) {
		early.canaries = ls.canaries(plan)
		early.graded = scoring.GradeProbes(r, &scoring.Options{Canaries: early.canaries})
	}
	res := probe.Run(ctx, t, &po)
	timeline.Mark("probe run done")
	if recheck && first.Info(0).SpawnError != "" && sandbox.Recheck(first) {
		// The sandbox may no longer build here (the pass was saved
		// before): launch again after a real check, which reports a
		// broken sandbox, or picks another backend, as it always did.
		ls.close()
		return probeOnceTorn(outer, plan, opts, false)
	}
	addLaunchFindings(res, plan, first, ls.latest(), o.Sandbox)
	// Every launch (relaunches included) had its own canaries; a leak of
	// any of them counts.
	canaries, onStderr := ls.secrets()
	// The user's own values: a server echoing one leaks a real secret,
	// and none may be stored.
	mask, detect := configuredSecrets(plan, o.Sandbox)
	maps.Copy(canaries, detect)
	// Everything the grader needs from the sandbox is read: tear the
	// launches down while the result is graded (and, by the caller,
	// stored).
	teardown := make(chan struct{})
	torn = func() { <-teardown }
	go func() {
		defer close(teardown)
		if beforeTeardown != nil {
			beforeTeardown()
		}
		ls.close()
		timeline.Mark("sandbox closed")
		cancel()
	}()
	// The sandbox searched all of stderr; the grader sees only its tail.
	defer timeline.Mark("graded")
	gopts := &scoring.Options{Canaries: canaries, StderrSecrets: onStderr}
	if early.graded != nil && maps.Equal(early.canaries, canaries) {
		return maskResult(gradeGraded(res, gopts, policy, early.graded), mask), torn, nil
	}
	return maskResult(grade(res, gopts, policy), mask), torn, nil
}

// canaries are the canaries of every launch so far and the user's own
// secret values to detect, as the grader gets them.
func (l *launches) canaries(plan *vocab.Plan) map[string]string {
	canaries, _ := l.secrets()
	_, detect := configuredSecrets(plan, l.opts)
	maps.Copy(canaries, detect)
	return canaries
}

// beforeTeardown, when set (by tests), runs before the background
// teardown of a probe's launches.
var beforeTeardown func()

// launches are the sandboxed processes of one probe: the first launch and
// every relaunch [probe.Run] asks for. launch and latest may be called
// from the probe's goroutines.
type launches struct {
	plan *vocab.Plan
	opts *sandbox.Options

	mu      sync.Mutex
	servers []*sandbox.Server
}

// launch starts a fresh copy of the server; it is [probe.Options.Relaunch].
func (l *launches) launch(ctx context.Context) (mcp.Transport, error) {
	srv, err := sandbox.Launch(ctx, l.plan, l.opts)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.servers = append(l.servers, srv)
	l.mu.Unlock()
	return srv.Transport(), nil
}

// latest is the newest launch, the one behind the transport in use.
func (l *launches) latest() *sandbox.Server {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.servers[len(l.servers)-1]
}

// close tears every launch down.
func (l *launches) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.servers {
		_ = s.Close()
	}
}

// secrets returns the canaries of every launch by name, and the secrets
// the sandbox found in each launch's whole stderr; a relaunch's names say
// which launch they belong to.
func (l *launches) secrets() (canaries map[string]string, onStderr []string) {
	canaries = map[string]string{}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, srv := range l.servers {
		in := srv.Info(0)
		for k, v := range in.Canaries {
			if i > 0 {
				k = fmt.Sprintf("%s (launch %d)", k, i+1)
			}
			canaries[k] = v
		}
		for _, name := range in.StderrSecrets {
			if i > 0 {
				name = fmt.Sprintf("%s (launch %d)", name, i+1)
			}
			onStderr = append(onStderr, name)
		}
	}
	return canaries, onStderr
}

// addLaunchFindings adds to res what the launcher knows and the probe
// does not: the isolation the first process ran under, declared-vs-observed
// checks against the plan's server.json, hints for a failed handshake, the
// version an unpinned package installed, the plan's notes, sandbox
// warnings and refused redirects.
func addLaunchFindings(res *probe.Result, plan *vocab.Plan, first, last *sandbox.Server, so *sandbox.Options) {
	info := first.Info(0)
	if info.Backend != "remote" {
		// Read after the run: the mechanisms are known once the process
		// has been started.
		res.Target.Isolation = isolationOf(info)
	}
	if len(plan.ServerJSON) > 0 {
		res.Findings = append(res.Findings, probe.CheckDeclared(res, plan.ServerJSON)...)
	}
	if hint := fetcherHint(plan, res, so); hint != "" {
		res.Liveness.Detail += "; " + hint
	}
	lastInfo := last.Info(0)
	if !res.Liveness.HandshakeCompleted && lastInfo.Backend != sandbox.BackendNone {
		if hint := sandbox.UnexposedHint(lastInfo.StderrTail, lastInfo.Exposed); hint != "" {
			res.Liveness.Detail += "; " + hint
		}
	}
	if v := info.InstalledVersion; v != "" && plan.Package != nil && v != plan.Package.Version {
		// An unpinned package: record the version that ran.
		res.Target.Version = v
		if len(res.Target.Command) > 0 && plan.Launcher != "" {
			res.Target.Command[0] = plan.Package.RegistryType + ":" + plan.Package.Identifier + "@" + v
		}
	}
	withNotes(res, plan)
	for _, w := range info.Warnings {
		res.Findings = append(res.Findings, probe.NewFinding(probe.CodeSandboxWarning, "server", "sandbox", w, "%s", w))
	}
	for _, r := range lastInfo.Redirects {
		res.Findings = append(res.Findings, probe.NewFinding(probe.CodeCrossOriginRedirect, "server", "http", r, "%s", r))
	}
}

// grade scores the error responses of res and decides its verdict. Every
// way out of [Probe] ends here, once: the grader is the last producer of
// findings, so they are sorted here, when all are in (probe.Run, the
// checks Probe adds, the grader), and before the verdict lists them.
func grade(res *probe.Result, so *scoring.Options, policy *scoring.Policy) *probe.Result {
	return gradeGraded(res, so, policy, scoring.GradeProbes(res, so))
}

// gradeGraded is grade for answers already graded by
// [scoring.GradeProbes] with so's canaries.
func gradeGraded(res *probe.Result, so *scoring.Options, policy *scoring.Policy, graded []scoring.Graded) *probe.Result {
	scoring.ScoreGraded(res, so, graded)
	probe.SortFindings(res.Findings)
	v := scoring.Decide(res, policy)
	res.Verdict = &v
	return res
}

// fetchers download the package they run on every start.
// The value is the target that installs the package before launch instead.
var fetchers = map[string]string{"npx": "npm:NAME@VERSION", "bunx": "npm:NAME@VERSION", "uvx": "pypi:NAME==VERSION", "pipx": "pypi:NAME==VERSION"}

// fetcherHint explains a failed start of a command such as `npx -y pkg`
// in a sandbox without network: the fetch cannot work there.
func fetcherHint(plan *vocab.Plan, res *probe.Result, so *sandbox.Options) string {
	if res.Liveness.HandshakeCompleted || plan.Command == "" || (so != nil && so.AllowNetwork) {
		return ""
	}
	target, ok := fetchers[filepath.Base(plan.Command)]
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s fetches its package at run time and the sandbox has no network: probe %s (installed before launch) or pass --allow-network",
		filepath.Base(plan.Command), target)
}

// TargetOf describes a plan for the result.
func TargetOf(plan *vocab.Plan) probe.Target {
	t := probe.Target{
		Name:      plan.Name,
		Version:   plan.Version,
		Source:    plan.Source,
		Transport: plan.Transport,
		URL:       withoutUserinfo(plan.URL),
	}
	t.Launcher, t.Written = plan.Launcher, plan.Written
	if plan.Command != "" {
		t.Command = append([]string{plan.Command}, plan.Args...)
	} else if plan.Package != nil {
		t.Command = append([]string{plan.Package.RegistryType + ":" + plan.Package.Identifier + versionSuffix(plan.Package)}, plan.Args...)
	}
	return t
}

// withoutUserinfo drops user:password@ from a URL (such URLs are refused
// before launch, but the result still names the target).
func withoutUserinfo(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}

func versionSuffix(p *vocab.Package) string {
	if p.Version == "" {
		return ""
	}
	if p.RegistryType == "pypi" {
		return "==" + p.Version
	}
	return "@" + p.Version
}

func preLaunch(target probe.Target, status vocab.Status, detail, evidence string, start time.Time) *probe.Result {
	res := &probe.Result{
		Target:            target,
		Tools:             []probe.Tool{},
		Prompts:           []probe.Prompt{},
		Resources:         []probe.Resource{},
		ResourceTemplates: []probe.ResourceTemplate{},
		Findings:          []probe.Finding{},
		Calls:             []probe.Call{},
		Probes:            []probe.ProbeCall{},
	}
	res.Liveness.Status = status
	res.Liveness.Detail = safe.Truncate(detail, probe.MaxEvidence, safe.Ellipsis)
	res.Liveness.Evidence = safe.Truncate(evidence, probe.MaxEvidence, safe.Ellipsis)
	res.Liveness.Timings.TotalMs = probe.Ms(time.Since(start))
	return res
}

func isolationOf(in sandbox.Info) *probe.Isolation {
	l := in.Limits
	var exposed []probe.ExposedPath
	for _, e := range in.Exposed {
		exposed = append(exposed, probe.ExposedPath{Path: e.Path, Writable: e.Writable, Why: e.Why})
	}
	return &probe.Isolation{
		WorkDir:      in.WorkDir,
		Home:         in.Home,
		Exposed:      exposed,
		Refused:      in.Refused,
		Backend:      in.Backend,
		Network:      in.Network,
		Mechanisms:   in.Mechanisms,
		MemoryBytes:  l.MemoryBytes,
		Processes:    l.Processes,
		CPUTimeMs:    l.CPUTime.Milliseconds(),
		WallMs:       l.Wall.Milliseconds(),
		StdoutBytes:  l.StdoutBytes,
		MessageBytes: l.MessageBytes,
	}
}

func processInfo(in sandbox.Info) probe.ProcessInfo {
	pi := probe.ProcessInfo{
		SpawnError:    in.SpawnError,
		Exited:        in.Exited,
		ExitCode:      in.ExitCode,
		Signal:        in.Signal,
		StderrTail:    in.StderrTail,
		StdoutNoise:   in.StdoutNoise,
		LimitExceeded: in.LimitExceeded,
		LimitValue:    in.LimitValue(),
		LimitDetail:   in.LimitDetail,
		Started:       in.Started,
	}
	if in.HTTP != nil {
		pi.HTTPStatus, pi.HTTPContentType, pi.OAuthMetadata = in.HTTP.Status, in.HTTP.ContentType, in.HTTP.ResourceMetadata
	}
	return pi
}

// withNotes adds the plan's notes (what the config reader refused or could
// not reproduce) to res as findings.
func withNotes(res *probe.Result, plan *vocab.Plan) *probe.Result {
	for _, n := range plan.Notes {
		code := probe.CodeLauncherNote
		if strings.HasPrefix(n, "volume mount") {
			code = probe.CodeVolumeRefused
		}
		res.Findings = append(res.Findings, probe.NewFinding(code, "server", "config", n, "%s", n))
	}
	return res
}

// installStep installs plan's package (if any) under the install deadline.
// done is true when the plan is done: its install failed (res is the graded
// pre-launch result) or the sandbox infrastructure failed (err).
func installStep(ctx context.Context, plan *vocab.Plan, o *ProbeOptions) (res *probe.Result, done bool, err error) {
	if plan.Package == nil || plan.Status != "" {
		return nil, false, nil
	}
	start := time.Now()
	var ended func(error, time.Duration)
	if o.Installing != nil {
		v := plan.Package.Version
		if v == "" {
			v = "latest"
		}
		ended = o.Installing(plan.Package.RegistryType + " package " + plan.Package.Identifier + "@" + v)
	}
	ierr := sandbox.Install(ctx, plan, o.Sandbox)
	if ended != nil {
		ended(ierr, time.Since(start))
	}
	if ierr == nil {
		return nil, false, nil
	}
	var le *sandbox.LaunchError
	if !errors.As(ierr, &le) {
		return nil, true, ierr
	}
	policy := o.Policy
	if policy == nil {
		policy = scoring.DefaultPolicy()
	}
	return grade(preLaunch(TargetOf(plan), le.Status, le.Detail, le.Evidence, start), nil, policy), true, nil
}
