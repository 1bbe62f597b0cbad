// Package logsafe keeps personal data out of log lines: error messages may quote what a
// customer sent (an e-mail address, a name), and the logs are kept for weeks and read by
// operators who need the status and the parameter, not the value.
package logsafe

import "regexp"

var (
	// emailLike matches anything shaped like an e-mail address, quoted or not.
	emailLike = regexp.MustCompile(`[^\s"'<>()\[\],;:@]+@[^\s"'<>()\[\],;:@]+`)
	// quoted matches a double-quoted literal (Go's %q and the API's messages quote the
	// values they echo), escaped quotes included.
	quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
)

// Text is s with every e-mail-like word replaced by <email> and every double-quoted
// literal by "…": what stays is the message's wording, which names the problem.
func Text(s string) string {
	s = quoted.ReplaceAllString(s, `"…"`)
	return emailLike.ReplaceAllString(s, "<email>")
}
