// Output files.
//
// Every flag of schedlab that names a file to write (--timeline,
// --chrome-trace, the golden files of `schedlab test -update`, and any
// output added later) follows one rule, kept here so that each command
// applies it the same way:
//
//   - An output may not be an input of the run: the script, or a module it
//     loads. gcc refuses the same way ("input file is the same as output
//     file"); writing a timeline over the script would lose it.
//   - Two outputs of one run may not be the same file: each would clobber
//     the other.
//   - "The same file" is decided on the file the name leads to: through
//     symbolic links, and, for a file that exists already, through hard
//     links too (os.SameFile).
//   - A regular file is written through a temporary file in the same
//     directory, renamed into place by Commit when the output is complete.
//     An interrupted or failed run leaves the old file as it was (or no
//     file) and no half-written one; Abort removes the temporary file.
//     The temporary file is created when the output is opened, before the
//     run starts, so that a directory that cannot be written is reported
//     before anything runs.
//   - A name that leads to something other than a regular file (a device
//     such as /dev/null or /dev/stdout, a pipe), or a name under /dev or
//     /proc, is written directly, as it cannot be renamed over; a
//     directory is refused.
//
// Use: an Outputs holds the inputs (Input) and the outputs opened so far
// (Open); Commit renames every output into place, Abort drops them.

package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/schedlab/schedlab/lang"
)

// Outputs are the files one run reads and writes. The zero value has no
// inputs and no outputs.
type Outputs struct {
	inputs  []fileID
	outputs []*Output
}

// A fileID identifies a file: by the path its name leads to, and, when it
// exists, by its FileInfo for os.SameFile.
type fileID struct {
	name string      // as given, for messages
	what string      // "the script", "-timeline", ...
	path string      // absolute, through symbolic links where they exist
	info os.FileInfo // nil when the file does not exist
}

func identify(name, what string) fileID {
	id := fileID{name: name, what: what, path: resolvePath(name)}
	if fi, err := os.Stat(name); err == nil {
		id.info = fi
	}
	return id
}

// resolvePath returns the absolute path name leads to: through symbolic
// links as far as they exist (a file not created yet resolves through its
// directory).
func resolvePath(name string) string {
	abs, err := filepath.Abs(name)
	if err != nil {
		abs = filepath.Clean(name)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

func (a fileID) same(b fileID) bool {
	if a.info != nil && b.info != nil {
		return os.SameFile(a.info, b.info)
	}
	return a.path == b.path
}

// Input records name as a file the run reads; what names it in messages
// ("the script", "module lib.star").
func (o *Outputs) Input(name, what string) {
	o.inputs = append(o.inputs, identify(name, what))
}

// Check reports whether name may be written as the output of flag: it is
// no input of the run and no other output. The error says which file it
// would destroy.
func (o *Outputs) Check(flag, name string) error { return o.check(flag, name, nil) }

// Reserve checks name as the output of flag and counts it among the
// outputs of the run before it is opened, so that a command that knows
// all its outputs up front (schedlab test -update) refuses a clash before
// it runs anything. Open or WriteFile of the same name takes the
// reservation.
func (o *Outputs) Reserve(flag, name string) error {
	if err := o.check(flag, name, nil); err != nil {
		return err
	}
	o.outputs = append(o.outputs, &Output{id: identify(name, flag), done: true, reserved: true})
	return nil
}

// check is Check, not comparing with the output skip.
func (o *Outputs) check(flag, name string, skip *Output) error {
	id := identify(name, flag)
	if name == "" {
		return fmt.Errorf("%s: empty file name", flag)
	}
	if id.info != nil && id.info.IsDir() {
		return fmt.Errorf("%s %s: is a directory", flag, name)
	}
	for _, in := range o.inputs {
		if id.same(in) {
			return fmt.Errorf("%s %s: is %s (%s), an input of the run: refusing to overwrite it", flag, name, in.what, in.name)
		}
	}
	for _, out := range o.outputs {
		if out != skip && id.same(out.id) {
			return fmt.Errorf("%s %s: is also the file of %s: give each output a file of its own", flag, name, out.id.what)
		}
	}
	return nil
}

// Open checks name as the output of flag (Check) and opens it for
// writing: a temporary file beside it, renamed into place by Commit, or
// the file itself when it is not a regular file.
func (o *Outputs) Open(flag, name string) (*Output, error) {
	w := &Output{id: identify(name, flag)}
	var res *Output // its reservation, if any
	for _, out := range o.outputs {
		if out.reserved && out.id.what == flag && w.id.same(out.id) {
			res = out
			break
		}
	}
	if err := o.check(flag, name, res); err != nil {
		return nil, err
	}
	if res != nil {
		o.outputs = slices.DeleteFunc(o.outputs, func(out *Output) bool { return out == res })
	}
	if w.id.info != nil && (!w.id.info.Mode().IsRegular() || special(name, w.id.path)) {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", flag, err)
		}
		w.f = f
	} else {
		f, err := createTemp(w.id.path, name)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", flag, err)
		}
		w.f, w.tmp = f, f.Name()
	}
	o.outputs = append(o.outputs, w)
	return w, nil
}

// special reports whether name (leading to path) is one of the system's
// special names, such as /dev/stdout, that can lead to a regular file
// (the shell's redirection of stdout): such a file is written directly,
// since renaming over it would cut it from the file descriptor that
// holds it.
func special(name, path string) bool {
	for _, dir := range []string{"/dev/", "/proc/"} {
		if strings.HasPrefix(name, dir) || strings.HasPrefix(path, dir) {
			return true
		}
	}
	return false
}

// createTemp creates a new file beside path to write path's contents in,
// with the permissions os.Create would give (0666 less the umask). An
// error names the file as name, as the user gave it.
func createTemp(path, name string) (*os.File, error) {
	dir, base := filepath.Split(path)
	for i := 0; ; i++ {
		tmp := filepath.Join(dir, "."+base+".tmp"+strconv.Itoa(os.Getpid())+"-"+strconv.Itoa(i))
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) && i < 100 {
			continue
		}
		if err != nil {
			// Name the file the user asked for, not the temporary one.
			var pe *fs.PathError
			if errors.As(err, &pe) {
				pe.Path = name
				pe.Op = "open"
			}
			return nil, err
		}
		return f, nil
	}
}

// Commit closes every output and renames each into place. It returns the
// first error; outputs that could not be committed are removed.
func (o *Outputs) Commit() error {
	var first error
	for _, w := range o.outputs {
		if err := w.Commit(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Abort closes every output not committed yet and removes its temporary
// file: the files the outputs name are left as they were.
func (o *Outputs) Abort() {
	for _, w := range o.outputs {
		w.Abort()
	}
}

// An Output is one output file being written.
type Output struct {
	id       fileID
	f        *os.File
	tmp      string // the temporary file, "" when writing the file itself
	done     bool   // committed or aborted
	reserved bool   // not opened yet (Reserve)
}

// Name returns the name of the file, as given.
func (w *Output) Name() string { return w.id.name }

// Write writes to the output.
func (w *Output) Write(p []byte) (int, error) { return w.f.Write(p) }

// Commit closes the output and renames it into place. Committing twice
// does nothing.
func (w *Output) Commit() error {
	if w.done {
		return nil
	}
	w.done = true
	err := w.f.Close()
	if w.tmp == "" {
		return err
	}
	if err == nil {
		err = os.Rename(w.tmp, w.id.path)
	}
	if err != nil {
		os.Remove(w.tmp)
		return fmt.Errorf("%s: %v", w.id.name, err)
	}
	return nil
}

// Abort closes the output and removes its temporary file, unless it was
// committed.
func (w *Output) Abort() {
	if w.done {
		return
	}
	w.done = true
	w.f.Close()
	if w.tmp != "" {
		os.Remove(w.tmp)
	}
}

// WriteFile writes data to name as an output of flag: checked against the
// inputs and the outputs so far, written to a temporary file and renamed
// into place. It is Open, Write and Commit in one.
func (o *Outputs) WriteFile(flag, name string, data []byte) error {
	w, err := o.Open(flag, name)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		w.Abort()
		return fmt.Errorf("%s: %v", name, err)
	}
	return w.Commit()
}

// ReadInput reads a file the command line names as an input (a report for
// `schedlab explore merge`): as os.ReadFile does, but refusing, before it
// opens it, what is not a regular file. A FIFO or a device could block
// the open or the read for ever. Scripts are read by lang.ReadScript,
// which applies the same rule.
func ReadInput(name string) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Op = "open" // as os.ReadFile words it
		}
		return nil, err
	}
	if fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("is a directory")}
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("not a regular file (%s)", lang.FileKind(fi.Mode()))}
	}
	return os.ReadFile(name)
}
