package cli

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// directivePrefix starts a directive comment: `# schedlab: --procs=4 --trace`.
const directivePrefix = "schedlab:"

// TestDirectivePrefix starts a directive of `schedlab test`, which the
// run ignores: `# schedlab test: -mode=output` (package golden).
const TestDirectivePrefix = "schedlab test:"

// A Directive is the flags of one directive line of a script.
type Directive struct {
	Line int      // 1-based line number in the script
	Args []string // the flags, split at blanks
}

// Directives returns the directive lines of src with the given prefix
// (TestDirectivePrefix), as directives finds the run's.
func Directives(src []byte, prefix string) []Directive {
	var ds []Directive
	for _, d := range directivesWith(src, prefix) {
		ds = append(ds, Directive{Line: d.line, Args: d.args})
	}
	return ds
}

// TraceDirective returns the line, the text and the value of the last
// --trace flag of src's `# schedlab:` directives (the one that counts),
// or 0: the flag `schedlab test` sets by its mode, which a directive may
// not contradict. A value that is not a bool is reported by the run.
func TraceDirective(src []byte) (line int, flag string, on bool) {
	line, flag, value, hasValue := directiveFlag(src, "trace")
	b, err := strconv.ParseBool(value)
	return line, flag, !hasValue || err == nil && b
}

// TraceFormatDirective returns the line, the text and the value of the
// last --trace-format flag of src's `# schedlab:` directives, or 0:
// `schedlab test`'s events mode reads the text trace only. The value is
// as written, "" when the flag has none (the next argument then).
func TraceFormatDirective(src []byte) (line int, flag, value string) {
	line, flag, value, _ = directiveFlag(src, "trace-format")
	if line > 0 && value == "" {
		for _, d := range directives(src) {
			if i := slices.Index(d.args, flag); d.line == line && i >= 0 && i+1 < len(d.args) {
				value = d.args[i+1]
			}
		}
	}
	return line, flag, value
}

// directiveFlag returns the last flag called name in src's `# schedlab:`
// directives: its line (0 if there is none), its text, and its value
// after =, if it has one.
func directiveFlag(src []byte, name string) (line int, flag, value string, hasValue bool) {
	for _, d := range directives(src) {
		for _, a := range d.args {
			n, v, has := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if n == name && strings.HasPrefix(a, "-") {
				line, flag, value, hasValue = d.line, a, v, has
			}
		}
	}
	return line, flag, value, hasValue
}

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
func directives(src []byte) []directive { return directivesWith(src, directivePrefix) }

// directivesWith returns the directive lines of src that start with
// prefix, as directives does.
func directivesWith(src []byte, prefix string) []directive {
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
		if rest, ok := strings.CutPrefix(text, prefix); ok {
			ds = append(ds, directive{line: i + 1, args: strings.Fields(rest)})
		}
	}
	return ds
}

// CheckDirectivePrefix starts a directive of `schedlab check`, which the
// run ignores: `# schedlab check: --reduction=dpor`, the search flags
// that a script needs to have its bug found (CheckDirectives).
const CheckDirectivePrefix = "schedlab check:"

// CheckDirectives are the flags of a script's `# schedlab check:`
// directives: how `schedlab check` is to search it, unless its command
// line says otherwise. Only the search flags may be given, since the
// others would change what the script does, which is a run directive's
// business, or where the output goes.
type CheckDirectives struct {
	Reduction string   // --reduction: "", none or dpor
	Stalls    string   // --stalls: "", on or off
	Flags     []string // the flags, as written, in order
}

// ParseCheckDirectives returns the `# schedlab check:` directives of the
// script filename, whose source is src. The last of a flag given twice
// counts, as on a command line.
func ParseCheckDirectives(filename string, src []byte) (CheckDirectives, error) {
	var d CheckDirectives
	for _, line := range directivesWith(src, CheckDirectivePrefix) {
		for _, a := range line.args {
			name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
			var err error
			switch {
			case !strings.HasPrefix(a, "-"):
				err = fmt.Errorf("unexpected argument %q: a directive holds only flags", a)
			case name != "reduction" && name != "stalls":
				err = fmt.Errorf("%s is not a search flag: a check directive takes --reduction and --stalls (run flags go in a `# schedlab:` directive)", a)
			case !hasValue:
				err = fmt.Errorf("%s: give its value as %s=VALUE", a, a)
			case name == "reduction" && value != "none" && value != "dpor":
				err = fmt.Errorf("invalid value %q for flag -reduction: want none or dpor", value)
			case name == "stalls" && value != "on" && value != "off":
				err = fmt.Errorf("invalid value %q for flag -stalls: want on or off", value)
			}
			if err != nil {
				return CheckDirectives{}, fmt.Errorf("%s:%d: schedlab check directive: %v", filename, line.line, err)
			}
			if name == "reduction" {
				d.Reduction = value
			} else {
				d.Stalls = value
			}
			d.Flags = append(d.Flags, a)
		}
	}
	return d, nil
}
