// Package schedfile reads and writes schedule files: one schedule of a
// script, as `schedlab check` found it and `schedlab run --schedule FILE`
// replays it.
//
// A schedule is a run's answers to the engine's choice points
// (runtime/choice.go). Answers fit only the run they came from, so the
// file names that run: the script, by name and by the SHA-256 of its
// source, and the run's settings as the trace header writes them
// (procs=2 seed=1 ...). A replay whose script or settings differ is
// refused with what differs, rather than replaying answers to other
// questions. The file is text:
//
//	# schedlab schedule v1
//	script lost_update.star sha256=9f2c...
//	settings procs=1 seed=1 preempt=on costs=default
//	outcome assert: lost an update: counter is 1
//	choices 0 1 0 0
//
// The outcome line is what the run gave, for a person; a replay does not
// check it.
package schedfile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// header is a schedule file's first line.
const header = "# schedlab schedule v1"

// A File is a schedule and the run it fits.
type File struct {
	Script   string // the script's name, as the command line gave it
	SHA256   string // of the script's source, hex
	Settings string // the run's settings, as the trace header writes them
	Outcome  string // how the run ended, one line; "" if not said
	Choices  []int
}

// Hash returns the hex SHA-256 of a script's source.
func Hash(src []byte) string {
	sum := sha256.Sum256(src)
	return hex.EncodeToString(sum[:])
}

// Write writes f.
func (f *File) Write(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintln(&b, header)
	fmt.Fprintf(&b, "script %s sha256=%s\n", f.Script, f.SHA256)
	fmt.Fprintf(&b, "settings %s\n", f.Settings)
	if f.Outcome != "" {
		fmt.Fprintf(&b, "outcome %s\n", strings.ReplaceAll(f.Outcome, "\n", " "))
	}
	fmt.Fprintf(&b, "choices %s\n", FormatChoices(f.Choices, " "))
	_, err := w.Write(b.Bytes())
	return err
}

// FormatChoices writes choices separated by sep.
func FormatChoices(choices []int, sep string) string {
	s := make([]string, len(choices))
	for i, c := range choices {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, sep)
}

// ParseChoices reads a list of answers separated by commas or spaces, as
// --choices and a file's choices line give them.
func ParseChoices(s string) ([]int, error) {
	fields := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })
	choices := make([]int, 0, len(fields))
	for _, f := range fields {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("choice %q: want an answer, an integer from 0", f)
		}
		choices = append(choices, n)
	}
	return choices, nil
}

// Read reads a schedule file; name is its name, for errors, which say
// which line is wrong and why.
func Read(name string, data []byte) (*File, error) {
	f := &File{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<26)
	line := 0
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}
	seen := map[string]bool{}
	for sc.Scan() {
		line++
		text := sc.Text()
		if line == 1 {
			if text != header {
				return nil, bad("not a schedule file: want the first line %q", header)
			}
			continue
		}
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		key, rest, _ := strings.Cut(text, " ")
		if seen[key] {
			return nil, bad("a second %s line", key)
		}
		seen[key] = true
		switch key {
		case "script":
			script, hash, ok := strings.Cut(rest, " sha256=")
			if !ok || len(hash) != 64 {
				return nil, bad("want script NAME sha256=HASH (64 hex digits)")
			}
			f.Script, f.SHA256 = script, hash
		case "settings":
			f.Settings = rest
		case "outcome":
			f.Outcome = rest
		case "choices":
			c, err := ParseChoices(rest)
			if err != nil {
				return nil, bad("%v", err)
			}
			f.Choices = c
		default:
			return nil, bad("unknown line %q", key)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if line == 0 {
		return nil, fmt.Errorf("%s: empty: not a schedule file", name)
	}
	for _, key := range []string{"script", "settings", "choices"} {
		if !seen[key] {
			return nil, fmt.Errorf("%s: no %s line: the file is damaged or cut short", name, key)
		}
	}
	return f, nil
}

// Fits reports, as an error naming the file, whether f is a schedule of
// the script src (under any name) with the settings given.
func (f *File) Fits(name string, src []byte, settings string) error {
	if h := Hash(src); h != f.SHA256 {
		return fmt.Errorf("%s is a schedule of another script: %s with sha256 %.12s..., not this one (%.12s...); the script changed since the schedule was found, so its answers would fit other questions", name, f.Script, f.SHA256, h)
	}
	if settings != f.Settings {
		return fmt.Errorf("%s was found with the settings %q, this run has %q: give the same flags", name, f.Settings, settings)
	}
	return nil
}
