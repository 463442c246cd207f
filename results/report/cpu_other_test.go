//go:build !unix

package report_test

// processCPU is not measured on this platform.
func processCPU() float64 { return 0 }
