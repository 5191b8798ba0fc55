// Reading lines: from a terminal with readline, or plain.

package repl

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/chzyer/readline"
)

// A lineReader reads one line of input after showing a prompt.
type lineReader interface {
	// ReadLine returns a line without its newline, io.EOF at the end of
	// input (Ctrl-D), or readline.ErrInterrupt for Ctrl-C.
	ReadLine(prompt string) (string, error)
}

// A plainReader reads lines from a file or pipe. It shows no prompt,
// unless it echoes: then it prints each prompt and line as a terminal
// shows them, for transcripts.
type plainReader struct {
	in   *bufio.Reader
	echo bool
	out  io.Writer
}

func (p *plainReader) ReadLine(prompt string) (string, error) {
	line, err := p.in.ReadString('\n')
	if err == io.EOF && line != "" {
		err = nil // a last line without its newline
	}
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if p.echo {
		io.WriteString(p.out, strings.TrimRight(prompt+line, " ")+"\n")
	}
	return line, nil
}

// A termReader reads the terminal with github.com/chzyer/readline: line
// editing, history and tab completion.
type termReader struct {
	rl *readline.Instance
}

func newTermReader(r *repl) (*termReader, error) {
	if f := r.opts.HistoryFile; f != "" {
		os.MkdirAll(filepath.Dir(f), 0o700) // readline reports nothing if it cannot write
	}
	rl, err := readline.NewEx(&readline.Config{
		Prompt:            r.prompt(),
		HistoryFile:       r.opts.HistoryFile,
		HistorySearchFold: true,
		AutoComplete:      &completer{r: r},
		InterruptPrompt:   "^C",
		EOFPrompt:         "",
	})
	if err != nil {
		return nil, err
	}
	return &termReader{rl: rl}, nil
}

func (t *termReader) ReadLine(prompt string) (string, error) {
	t.rl.SetPrompt(prompt)
	return t.rl.Readline()
}

func (t *termReader) Close() error { return t.rl.Close() }

// HistoryFile returns where the REPL keeps its history:
// $XDG_STATE_HOME/schedlab/history, else ~/.schedlab_history, or "" when
// neither can be found.
func HistoryFile() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "schedlab", "history")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".schedlab_history")
	}
	return ""
}
