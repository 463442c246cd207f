// Command hostile-daemon is an MCP stdio server that leaves a daemon
// behind: it starts a copy of itself that calls setsid and starts a second
// copy (the double fork), which ignores SIGTERM and SIGHUP and sleeps for an
// hour, then it serves an empty MCP server. Arguments are passed on, so a
// marker argument tags the daemon.
//
// Used by the sandbox hostile tests: nothing may be left running after
// Close.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "middle":
			cmd := exec.Command("/proc/self/exe", append([]string{"daemon"}, os.Args[2:]...)...)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
			if err := cmd.Start(); err != nil {
				os.Exit(1)
			}
			os.Exit(0) // orphan the daemon
		case "daemon":
			signal.Ignore(syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
			time.Sleep(time.Hour)
			os.Exit(0)
		}
	}
	cmd := exec.Command("/proc/self/exe", append([]string{"middle"}, os.Args[1:]...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "hostile-daemon:", err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "hostile-daemon", Version: "0.1.0"}, nil)
	_ = server.Run(context.Background(), &mcp.StdioTransport{})
}
