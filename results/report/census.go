package report

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/sourcegraph/conc/stream"

	"github.com/mcpvet/mcpvet/probe"
	"github.com/mcpvet/mcpvet/results"
)

// A CensusReporter writes the census report of a scan ([results.Report])
// in one format. Reporters that write a section per server read each
// server's full result from the store through the report, one at a time.
type CensusReporter interface {
	Write(ctx context.Context, w io.Writer, r *results.Report) error
}

// The census reporters, one per format of [KindCensus].
var (
	_ CensusReporter = (*MarkdownReporter)(nil)
	_ CensusReporter = (*HTMLReporter)(nil)
	_ CensusReporter = (*CensusJSONReporter)(nil)
	_ CensusReporter = (*CSVReporter)(nil)
)

// WriteScan writes the report of a scan in a census format. The
// database is read twice: once for the census, then once more for the
// per-server sections, one result at a time, so memory stays small for
// any scan.
func WriteScan(ctx context.Context, w io.Writer, st *results.Store, scanID int64, format string, opts *results.ReportOptions) error {
	rw, err := Census(format)
	if err != nil {
		return err
	}
	r, err := results.BuildReport(ctx, st, scanID, opts)
	if err != nil {
		return err
	}
	return writeCensus(ctx, w, r, rw)
}

// WriteCensus writes r in a census format (see [Formats]).
func WriteCensus(ctx context.Context, w io.Writer, r *results.Report, format string) error {
	rw, err := Census(format)
	if err != nil {
		return err
	}
	return writeCensus(ctx, w, r, rw)
}

func writeCensus(ctx context.Context, w io.Writer, r *results.Report, rw CensusReporter) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	if err := rw.Write(ctx, bw, r); err != nil {
		return fmt.Errorf("report: writing report: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: writing report: %w", err)
	}
	return nil
}

// renderSections renders the per-server sections of the first n rows of
// r and writes them to w in row order. Each section's full result is
// read from the store and rendered into a buffer by one of GOMAXPROCS
// stream tasks; the stream writes the buffers in row order and holds at
// most GOMAXPROCS+1 of them waiting, so memory stays bounded for any n.
// The first error stops the rendering and is returned.
func renderSections(ctx context.Context, w io.Writer, r *results.Report, n int,
	render func(buf *bytes.Buffer, i int, row *results.ServerRow, res *probe.Result) error) error {
	n = min(n, len(r.Rows))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var err error // set by the callbacks, which the stream runs one at a time
	s := stream.New().WithMaxGoroutines(max(runtime.GOMAXPROCS(0), 1))
	for i := 0; i < n && ctx.Err() == nil; i++ {
		s.Go(func() stream.Callback {
			buf := sectionBufs.Get().(*bytes.Buffer)
			buf.Reset()
			rerr := ctx.Err()
			if rerr == nil {
				var res *probe.Result
				if res, rerr = r.Result(ctx, i); rerr == nil {
					rerr = render(buf, i, &r.Rows[i], res)
				}
			}
			return func() {
				if err == nil {
					if err = rerr; err == nil {
						_, err = w.Write(buf.Bytes())
					}
					if err != nil {
						cancel()
					}
				}
				if buf.Cap() <= 1<<20 {
					sectionBufs.Put(buf)
				}
			}
		})
	}
	s.Wait()
	if err == nil {
		err = ctx.Err()
	}
	return err
}

var sectionBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// eachJSON calls fn with the stored JSON of each row's result, in row
// order.
func eachJSON(ctx context.Context, r *results.Report, fn func(i int, row *results.ServerRow, js []byte) error) error {
	for i := range r.Rows {
		if err := ctx.Err(); err != nil {
			return err
		}
		js, err := r.ResultJSON(ctx, i)
		if err != nil {
			return err
		}
		if err := fn(i, &r.Rows[i], js); err != nil {
			return err
		}
	}
	return nil
}

// sectionAnchor is the HTML id of row i's section.
func sectionAnchor(i int) string { return fmt.Sprintf("s%d", i+1) }

// breakdown is one breakdown table of the census under its heading.
type breakdown struct {
	Title string
	Rows  []results.BreakdownRow
}

// breakdowns lists the census's breakdowns, in the order and under the
// headings both the Markdown and the HTML report show them.
func breakdowns(c *results.Census) []breakdown {
	return []breakdown{
		{"Package type", c.Breakdowns.PackageType},
		{"Transport", c.Breakdowns.Transport},
		{"Negotiated protocol version", c.Breakdowns.ProtocolVersion},
		{"Server SDK (from an SDK's serverInfo default, the package's dependencies or an SDK's error format)", c.Breakdowns.SDK},
	}
}
