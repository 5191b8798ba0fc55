package cli

import (
	"bytes"
	"strings"
)

// directivePrefix starts a directive comment: `# schedlab: --procs=4 --trace`.
const directivePrefix = "schedlab:"

// A directive is the flags of one `# schedlab:` line of a script.
type directive struct {
	line int      // 1-based line number in the script
	args []string // the flags, split at blanks
}

// directives returns the `# schedlab:` lines at the top of src: every
// comment line of the form `# schedlab: flags...` that comes before the
// first line that is neither blank nor a comment. Later lines in the
// script are ordinary comments, so a directive cannot hide in the middle of
// a program. Flags are split at blanks; there is no quoting.
func directives(src []byte) []directive {
	var ds []directive
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf")) // a byte-order mark, which the compiler drops too
	for i, line := range bytes.Split(src, []byte("\n")) {
		text := strings.TrimSpace(string(line))
		if text == "" {
			continue
		}
		if !strings.HasPrefix(text, "#") {
			break
		}
		text = strings.TrimSpace(strings.TrimPrefix(text, "#"))
		if rest, ok := strings.CutPrefix(text, directivePrefix); ok {
			ds = append(ds, directive{line: i + 1, args: strings.Fields(rest)})
		}
	}
	return ds
}
