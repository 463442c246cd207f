package sandbox

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpvet/mcpvet/vocab"
)

// ociRef matches an image reference: [host[:port]/]path[:tag][@digest].
var ociRef = lazyRegexp(`^([a-zA-Z0-9][a-zA-Z0-9.-]*(:[0-9]{1,5})?/)?` +
	`[a-z0-9]+([._-]+[a-z0-9]+)*(/[a-z0-9]+([._-]+[a-z0-9]+)*)*` +
	`(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?(@sha256:[a-f0-9]{64})?$`)

// installOCI pulls an image with docker or podman (the first whose engine
// answers) and returns a runner that starts it with `run -i`. The
// container is the isolation: the server does not run in the mcpvet
// sandbox backends, which cannot host a container engine.
func installOCI(ctx context.Context, pkg *vocab.Package, o *Options) (*entryPoint, error) {
	ref := pkg.Identifier
	if pkg.Version != "" && !strings.Contains(ref, "@") && !strings.Contains(ref[strings.LastIndex(ref, "/")+1:], ":") {
		ref += ":" + pkg.Version
	}
	if len(ref) > 512 || !ociRef().MatchString(ref) {
		return nil, launchErrorf(vocab.StatusInvalidPlan, "invalid OCI image reference %q", ref)
	}
	engine, err := containerEngine(ctx)
	if err != nil {
		return nil, err
	}
	if out, err := runTool(ctx, os.TempDir(), nil, engine, "pull", "--quiet", ref); err != nil {
		return nil, ociError(ctx, ref, out, err)
	}
	return &entryPoint{argv: []string{ref}, runner: &containerBackend{engine: engine, image: ref, allowNetwork: o.AllowNetwork}}, nil
}

// containerEngine returns the first of docker and podman whose engine
// answers `info`.
func containerEngine(ctx context.Context) (string, error) {
	var tried []string
	for _, name := range []string{"docker", "podman"} {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		ictx, cancel := context.WithTimeout(ctx, 15*time.Second)
		out, err := runTool(ictx, os.TempDir(), nil, p, "info", "--format", "{{.ServerVersion}}")
		cancel()
		if err == nil {
			return p, nil
		}
		tried = append(tried, fmt.Sprintf("%s info: %s", name, lastLines(out, 1)))
	}
	if len(tried) == 0 {
		return "", launchErrorf(vocab.StatusRuntimeUnavailable, "no container engine: neither docker nor podman is installed")
	}
	return "", &LaunchError{Status: vocab.StatusRuntimeUnavailable, Detail: "no container engine answers", Evidence: strings.Join(tried, "\n")}
}

func ociError(ctx context.Context, ref, out string, err error) error {
	evidence := lastLines(out, 20)
	low := strings.ToLower(out)
	switch {
	case ctx.Err() != nil:
		return &LaunchError{Status: vocab.StatusInstallFailed, Detail: "pulling image timed out", Evidence: evidence}
	case strings.Contains(low, "manifest unknown"), strings.Contains(low, "manifest for") && strings.Contains(low, "not found"):
		return &LaunchError{Status: vocab.StatusVersionNotFound, Detail: fmt.Sprintf("image %s: tag not found", ref), Evidence: evidence}
	case strings.Contains(low, "repository does not exist"), strings.Contains(low, "pull access denied"), strings.Contains(low, "name unknown"):
		return &LaunchError{Status: vocab.StatusPackageNotFound, Detail: fmt.Sprintf("image %s not found", ref), Evidence: evidence}
	}
	return &LaunchError{Status: vocab.StatusInstallFailed, Detail: fmt.Sprintf("pulling image %s: %v", ref, err), Evidence: evidence}
}

// containerBackend runs an image with `docker run -i`: no network unless
// allowed, read-only root, no capabilities, the sandbox's limits.
type containerBackend struct {
	engine, image string
	allowNetwork  bool
}

func (c *containerBackend) name() string { return filepath.Base(c.engine) }

func (c *containerBackend) command(s *Server) (*process, error) {
	name := "mcpvet-" + s.runID
	lim := s.opts.Limits
	args := []string{"run", "-i", "--rm", "--name", name, "--read-only", "--tmpfs", "/tmp",
		"--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--init"}
	if !c.allowNetwork {
		args = append(args, "--network", "none")
	}
	if lim.MemoryBytes > 0 {
		args = append(args, "--memory", strconv.FormatInt(lim.MemoryBytes, 10))
	}
	if lim.Processes > 0 {
		args = append(args, "--pids-limit", strconv.Itoa(lim.Processes))
	}
	// Values travel in the client's environment, not in argv (ps shows
	// argv to every user).
	for _, kv := range s.env {
		k, _, _ := cutEnv(kv)
		if k != "PATH" && k != "HOME" {
			args = append(args, "--env", k)
		}
	}
	args = append(args, c.image)
	args = append(args, s.argv[1:]...)
	p := &process{
		cmd:        &exec.Cmd{Path: c.engine, Args: append([]string{filepath.Base(c.engine)}, args...), Env: s.env, Dir: s.dir},
		mechanisms: []string{"container:" + filepath.Base(c.engine)},
	}
	// Killing the client does not stop the container: remove it.
	remove := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_, _ = runTool(ctx, os.TempDir(), nil, c.engine, "rm", "--force", name)
	}
	p.kill = remove
	p.cleanup = func() error { remove(); return nil }
	p.noGroupSignal = true
	p.signal = func(sig syscall.Signal) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = runTool(ctx, os.TempDir(), nil, c.engine, "kill", "--signal", signalName(sig), name)
	}
	return p, nil
}
