// Package sandbox launches MCP servers described by a [vocab.Plan] and hands back
// an [mcp.Transport] to talk to them. It knows nothing about probes.
//
// # Launching
//
//	srv, err := sandbox.Launch(ctx, plan, &sandbox.Options{Backend: "auto"})
//	var le *sandbox.LaunchError
//	if errors.As(err, &le) {
//		// a pre-launch outcome: le.Status is needs_configuration,
//		// runtime_unavailable, package_not_found, ...
//	}
//	defer srv.Close()
//	session, err := client.Connect(ctx, srv.Transport(), nil) // starts the process
//	...
//	info := srv.Info(2 * time.Second) // exit status, stderr tail, limit hit
//
// Programs that use the bwrap or none backend must call [Main] first thing
// in main (and tests in TestMain): they re-execute the current binary as a
// stage. The builtin backend re-executes it too, as the sandbox's init
// helper, which is C (init_helper.c) run by a constructor before the Go
// runtime starts, so it needs no call; the program must be built with cgo.
//
// # Backends
//
//   - builtin: Linux namespaces (mount, pid, ipc, uts, net unless
//     [Options.AllowNetwork], user when not root) prepared by an init helper
//     that builds a fresh root: read-only system directories, the package
//     folder read-only, a private empty HOME and /tmp, a new /proc, and
//     loopback only.
//   - bwrap: the same through bubblewrap.
//   - none: a plain child process. Used only when asked for.
//
// Under every backend the server starts in a new session (no controlling
// terminal) and inherits only stdin, stdout and stderr. The isolating
// backends also run it with no_new_privs, no capabilities and a seccomp
// filter (terminal ioctls, ptrace, keyrings, bpf, perf, userfaultfd,
// mounts, kexec, modules, new user namespaces); [Info.Mechanisms] lists
// what was read back from the running server, not what was asked for.
// The environment reaches the server through execve, never a command line.
//
// Run folders and cgroups name the mcpvet process that owns them; the
// first [Launch] of a process removes those of dead owners (left by a
// kill -9).
//
// "auto" picks bwrap, then builtin, and refuses ([ErrNoIsolation]) when
// neither works.
//
// # Limits
//
// Memory, process count and CPU time are enforced on the whole process tree
// with cgroups where they are writable (cgroup2, or cgroup v1 memory, pids
// and cpuacct), else per process with rlimits; [Info.Mechanisms] says which.
// Wall time, stdout volume and message size are enforced by the sandbox
// itself. A server that exceeds a limit is killed and [Info.LimitExceeded]
// names the limit.
//
// # Untrusted input
//
// Everything in a plan may come from a registry: it is passed as argv,
// never through a shell; package names and versions are validated before
// any installer runs. Everything a server sends is bounded.
package sandbox
