package probe

import (
	"errors"
	"fmt"
	"strings"

	"github.com/yosida95/uritemplate/v3"
)

// validateURITemplate checks t against the syntax of RFC 6570 (URI
// Template) up to level 4, as github.com/yosida95/uritemplate/v3 (the
// parser the go-sdk uses for resource templates) reads it: literals,
// expressions with the operators + # . / ; ? &, comma-separated variable
// lists, dotted and percent-encoded variable names, prefix modifiers :1 to
// :9999 and the explode modifier; the operators = , ! @ | reserved by the
// RFC are rejected. It returns nil for a valid template and otherwise an
// error naming the rule broken and the byte offset where parsing stopped.
func validateURITemplate(t string) (err error) {
	defer func() {
		// The parser panics on a state it does not know; a server's
		// template must never take the probe down.
		if r := recover(); r != nil {
			err = fmt.Errorf("not parseable: %v", r)
		}
	}()
	if _, err := uritemplate.New(t); err != nil {
		return templateError(t, err)
	}
	return nil
}

// templateError rewrites a parse error of uritemplate, which reads
// "RULE: PREFIX" plus one marker character ('_' or '|') with PREFIX the
// part of t read so far, as "RULE at offset N": the finding quotes the
// template already, and PREFIX may hold bytes a terminal should not see.
func templateError(t string, err error) error {
	msg := err.Error()
	if msg == "" {
		return errors.New("not a URI template")
	}
	body := msg[:len(msg)-1] // drop the marker
	for k := len(t); k >= 0; k-- {
		if rule, ok := strings.CutSuffix(body, ": "+t[:k]); ok {
			return fmt.Errorf("%s at offset %d", rule, k)
		}
	}
	return errors.New(strings.ToValidUTF8(msg, "\uFFFD"))
}
