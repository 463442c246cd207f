package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/mcpvet/mcpvet/scan/source"
)

// crawlBudget holds the registry crawl's budgets (issue 22 item 11): a
// registry that dribbles bytes or never stops handing out cursors ends at
// one of them, with a one-line message naming the flag to raise.
type crawlBudget struct {
	maxPages    int
	pageTimeout time.Duration
	timeout     time.Duration
	maxBytes    int64
}

func (b *crawlBudget) register(fl *pflag.FlagSet) {
	fl.IntVar(&b.maxPages, "registry-max-pages", source.DefaultMaxPages, "pages a registry crawl fetches at most")
	fl.DurationVar(&b.pageTimeout, "registry-page-timeout", source.DefaultPageTimeout, "time one registry page may take, retries included")
	fl.DurationVar(&b.timeout, "registry-timeout", source.DefaultMaxCrawlTime, "time a whole registry crawl may take")
	fl.Int64Var(&b.maxBytes, "registry-max-bytes", source.DefaultMaxCrawlBytes, "bytes a whole registry crawl may read")
}

// check returns a usage error for a budget that is not positive.
func (b *crawlBudget) check() error {
	switch {
	case b.maxPages <= 0:
		return usagef("--registry-max-pages %d: must be at least 1", b.maxPages)
	case b.pageTimeout <= 0:
		return usagef("--registry-page-timeout %s: must be positive, such as 2m", b.pageTimeout)
	case b.timeout <= 0:
		return usagef("--registry-timeout %s: must be positive, such as 30m", b.timeout)
	case b.maxBytes <= 0:
		return usagef("--registry-max-bytes %d: must be positive, such as %d", b.maxBytes, source.DefaultMaxCrawlBytes)
	}
	return nil
}

func (b *crawlBudget) apply(o *source.CrawlOptions) {
	o.MaxPages, o.PageTimeout, o.MaxCrawlTime, o.MaxCrawlBytes = b.maxPages, b.pageTimeout, b.timeout, b.maxBytes
}
