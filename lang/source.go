// Reading and bounding source text.
//
// Everything a script hands to the Starlark front end first passes the
// bounds here, so that no input can make the parser, the resolver or the
// compiler hang the process or overflow its stack:
//
//   - Only regular files are read (ReadScript). A FIFO, a device or a
//     socket could block the open or the read for ever, before any limit
//     of the run exists; they are refused after a stat, before the file is
//     opened. A directory is refused with open's wording.
//   - A file may hold at most MaxSourceSize bytes (2 MiB). A lesson is a
//     few kilobytes; the syntax tree of a file takes some 60 times its
//     size in memory and a parse of 2 MiB of operators a second of CPU, so
//     the bound keeps a parse within about 130 MB and that second.
//   - A UTF-8 byte-order mark at the very start is dropped, as Go's
//     compiler and Python do (stripBOM); anywhere else it is a syntax
//     error.
//   - The parser limits its own recursion (go.starlark.net: "excessive
//     nesting" past 1000 nested brackets), but not the depth of the tree
//     it builds without recursion: `1+1+1+...` or `x.a.a.a...` or
//     `f()()()...` is a left-deep chain, one level per operator, and the
//     resolver and the compiler walk it recursively. Four megabytes of
//     `1+` are two million levels, which exhausts Go's 1 GB stack
//     (`fatal error: stack overflow`, with the Go runtime's trace); the
//     size bound refuses those, and even 2 MiB are a million levels.
//     checkDepth measures the tree after parsing with a walk that stops
//     descending at MaxSyntaxDepth, and refuses a deeper one with the
//     position of the node where it crossed the bound.

package lang

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"go.starlark.net/syntax"
)

// MaxSourceSize is the largest script or module, in bytes.
const MaxSourceSize = 2 << 20

// MaxSyntaxDepth is how deep the syntax tree of a file may be: statements,
// expressions and their operands, counted as levels of nodes. Code people
// write is a few dozen levels deep; the parser's own bound on brackets
// (1000) stays well inside it.
const MaxSyntaxDepth = 10_000

// utf8BOM is the UTF-8 encoding of U+FEFF, the byte-order mark.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// ReadScript reads the script or module at name. It refuses, before
// opening it, anything that is not a regular file (a directory, a FIFO, a
// device), and a file larger than MaxSourceSize. The error is an
// *os.PathError, worded as open's.
func ReadScript(name string) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			pe.Op = "open" // as os.ReadFile words it
		}
		return nil, err
	}
	if err := regularSource(name, fi); err != nil {
		return nil, err
	}
	src, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	if len(src) > MaxSourceSize {
		// It grew between the stat and the read.
		return nil, tooLarge(name, int64(len(src)))
	}
	return src, nil
}

// regularSource reports why the file name, with info fi, cannot be a
// script, or nil.
func regularSource(name string, fi fs.FileInfo) error {
	mode := fi.Mode()
	switch {
	case mode.IsDir():
		return &os.PathError{Op: "open", Path: name, Err: errors.New("is a directory")}
	case !mode.IsRegular():
		return &os.PathError{Op: "open", Path: name, Err: fmt.Errorf("not a regular file (%s): a script must be a file", FileKind(mode))}
	case fi.Size() > MaxSourceSize:
		return tooLarge(name, fi.Size())
	}
	return nil
}

// FileKind names the kind of file mode is, for an error that refuses it:
// "a named pipe", "a device", "a socket", "a directory", "a regular file".
func FileKind(mode fs.FileMode) string {
	switch {
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0:
		return "a device"
	case mode.IsRegular():
		return "a regular file"
	}
	return "not a file of data"
}

func tooLarge(name string, size int64) error {
	return &os.PathError{Op: "read", Path: name, Err: fmt.Errorf("%d bytes, more than the %s a script may hold", size, FormatBytes(MaxSourceSize))}
}

// stripBOM drops a UTF-8 byte-order mark at the start of src.
func stripBOM(src []byte) []byte {
	return bytes.TrimPrefix(src, utf8BOM)
}

// checkDepth returns a syntax error at the first node of f that lies more
// than MaxSyntaxDepth levels deep, or nil. The walk never goes below that
// level, so its own recursion is bounded too.
func checkDepth(f *syntax.File) error {
	depth := 0
	var deep syntax.Node
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			depth--
			return false
		}
		if deep != nil {
			return false
		}
		if depth >= MaxSyntaxDepth {
			deep = n
			return false // and Walk calls no f(nil) for it
		}
		depth++
		return true
	})
	if deep == nil {
		return nil
	}
	pos, _ := deep.Span()
	return syntax.Error{Pos: pos, Msg: fmt.Sprintf("excessive nesting: the code is more than %d levels deep here (a chain of that many operators, calls or subscripts?)", MaxSyntaxDepth)}
}
