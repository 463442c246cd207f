//go:build unix

package report_test

import "syscall"

// processCPU returns the CPU time (user and system) this process has used,
// in seconds, so benchmarks can report a figure that the machine's load
// does not inflate.
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}
