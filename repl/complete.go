// Tab completion: commands after ':', names, and attributes after '.'.

package repl

import (
	"sort"
	"strings"

	"go.starlark.net/starlark"
)

// keywords are Starlark's, for completion.
var keywords = []string{"and", "break", "continue", "def", "elif", "else", "for", "if", "in", "lambda", "load", "not", "or", "pass", "return", "while"}

// A completer completes the word before the cursor (readline.AutoCompleter).
type completer struct{ r *repl }

// Do returns the candidates for the word that ends at pos, as the rest of
// each after what is typed, and the length of what is typed.
func (c *completer) Do(line []rune, pos int) ([][]rune, int) {
	before := string(line[:pos])
	if t := strings.TrimLeft(before, " \t"); strings.HasPrefix(t, ":") && !strings.ContainsAny(t, " \t") {
		return suffixes(commandNames(), t)
	}
	return suffixes(c.candidates(before))
}

// candidates returns the names that may complete the identifier or dotted
// name at the end of text, and the part of it they complete.
func (c *completer) candidates(text string) ([]string, string) {
	i := len(text)
	for i > 0 && (isIdent(text[i-1]) || text[i-1] == '.') {
		i--
	}
	word := text[i:]
	if word != "" && word[0] >= '0' && word[0] <= '9' {
		return nil, word // a number
	}
	dot := strings.LastIndexByte(word, '.')
	if dot < 0 {
		names := append([]string(nil), keywords...)
		names = append(names, c.r.session().Globals().Keys()...)
		names = append(names, starlark.Universe.Keys()...)
		return names, word
	}
	v := c.lookup(word[:dot])
	if v == nil {
		return nil, word[dot+1:]
	}
	if ha, ok := v.(starlark.HasAttrs); ok {
		return ha.AttrNames(), word[dot+1:]
	}
	return nil, word[dot+1:]
}

// lookup returns the value of a dotted name (x, x.y, ...), or nil. It
// reads attributes, which call no Starlark code.
func (c *completer) lookup(dotted string) starlark.Value {
	parts := strings.Split(dotted, ".")
	v, ok := c.r.session().Globals()[parts[0]]
	if !ok {
		v = starlark.Universe[parts[0]]
	}
	for _, name := range parts[1:] {
		ha, ok := v.(starlark.HasAttrs)
		if !ok || name == "" {
			return nil
		}
		w, err := ha.Attr(name)
		if err != nil || w == nil {
			return nil
		}
		v = w
	}
	return v
}

// suffixes returns, sorted and without duplicates, the rest of each name
// that starts with prefix, and the length of prefix.
func suffixes(names []string, prefix string) ([][]rune, int) {
	sort.Strings(names)
	var out [][]rune
	last := ""
	for _, n := range names {
		if n == last || !strings.HasPrefix(n, prefix) || (strings.HasPrefix(n, "_") && !strings.HasPrefix(prefix, "_")) {
			continue
		}
		last = n
		out = append(out, []rune(n[len(prefix):]))
	}
	return out, len([]rune(prefix))
}

func isIdent(b byte) bool {
	return b == '_' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
}
