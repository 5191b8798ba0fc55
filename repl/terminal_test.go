package repl

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedlab/schedlab/internal/testbuild"
)

// A pane is `schedlab repl` running in a real pseudo-terminal: a tmux
// session on a private server.
type pane struct {
	t      *testing.T
	tmux   string
	socket string
}

// tmuxPath returns tmux, or skips the test without it (except on CI,
// where .ci/run installs it).
func tmuxPath(t *testing.T) string {
	p, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is missing on CI (.ci/run installs it)")
		}
		t.Skip("tmux is not installed")
	}
	return p
}

// buildSchedlab returns the command, built once per set of sources
// (testbuild.Build; go test puts the go command that runs it first on
// PATH).
func buildSchedlab(t *testing.T) string {
	t.Helper()
	exe, err := testbuild.Build(".", "schedlab", nil, nil, "github.com/schedlab/schedlab/cmd/schedlab")
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func startPane(t *testing.T, command string) *pane {
	p := &pane{t: t, tmux: tmuxPath(t), socket: filepath.Join(t.TempDir(), "tmux")}
	p.run("-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "50", "-s", "repl", command)
	t.Cleanup(func() { exec.Command(p.tmux, "-S", p.socket, "kill-server").Run() })
	return p
}

func (p *pane) run(args ...string) string {
	p.t.Helper()
	out, err := exec.Command(p.tmux, append([]string{"-S", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// send types keys: text, or tmux key names such as Enter, Tab, C-c, C-d.
func (p *pane) send(keys ...string) {
	p.t.Helper()
	p.run(append([]string{"send-keys", "-t", "repl"}, keys...)...)
}

// screen returns what the pane shows, with colours as escape sequences.
func (p *pane) screen() string {
	p.t.Helper()
	return p.run("capture-pane", "-p", "-e", "-t", "repl", "-S", "-", "-E", "-")
}

// plain is the screen without escape sequences and the empty lines
// below the cursor.
func (p *pane) plain() string {
	p.t.Helper()
	return strings.TrimRight(p.run("capture-pane", "-p", "-t", "repl", "-S", "-", "-E", "-"), "\n")
}

// waitFor waits until the plain screen, after the text at mark, contains
// want, and returns it.
func (p *pane) waitFor(mark int, want string) string {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := p.plain()
		if mark <= len(s) && strings.Contains(s[mark:], want) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the terminal never showed %q; it shows:\n%s", want, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitEnd waits until the plain screen ends with want.
func (p *pane) waitEnd(want string) {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := p.plain()
		if strings.HasSuffix(s, want) {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the terminal never ended with %q; it shows:\n%s", want, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// line types a line and waits for the prompt that follows it, and returns
// what the line printed.
func (p *pane) line(text, prompt string) string {
	p.t.Helper()
	mark := len(p.plain())
	p.send(text, "Enter")
	s := p.waitFor(mark+len(text)+1, prompt)
	out := s[mark:]
	return out[:strings.LastIndex(out, prompt)]
}

// TestTerminal runs `schedlab repl --procs 2 --costs=zero` in a tmux pane and goes
// through what a new user does: prompts, completion with Tab, colour,
// spawning three goroutines on 2 Ps, stepping through a steal and seeing
// it in :runq, cancelling a busy loop with Ctrl-C, leaving with Ctrl-D.
func TestTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and runs a terminal")
	}
	tmuxPath(t)
	dir := t.TempDir()
	exe := buildSchedlab(t)
	state := filepath.Join(dir, "state")
	p := startPane(t, fmt.Sprintf("env -u NO_COLOR TERM=xterm-256color XDG_STATE_HOME=%s %s repl --procs 2 --costs=zero; echo \"exit status $?\"; sleep 600", state, exe))

	// The banner and the prompt, with the virtual time in colour.
	p.waitFor(0, "[0s] >>>")
	if s := p.screen(); !strings.Contains(s, "schedlab repl: 2 Ps, seed 1") || !strings.Contains(s, "\x1b[36m[0s]") {
		t.Errorf("no banner or no coloured prompt:\n%q", s)
	}

	// Tab completes a builtin; a second Tab lists the candidates.
	p.send("def wor")
	p.send("Tab")
	p.waitFor(0, ">>> def work")
	p.send("BSpace", "BSpace", "BSpace", "BSpace", "worker(i):", "Enter")
	p.waitFor(0, "    ...")
	p.send(`    work("1ms")`, "Enter")
	p.send(`    print("worker", i, "done at", now())`, "Enter")
	p.line("", "[0s] >>>")
	p.send("for i in range(3):", "Enter", "    spa")
	p.send("Tab")
	p.waitFor(0, "    spawn")
	p.send("(worker, i)", "Enter")
	p.line("", "[0s] >>>")
	mark := len(p.plain())
	p.send(":st", "Tab")
	p.send("Tab")
	p.waitFor(mark, ":stats")
	p.send("C-u")
	p.waitEnd("[0s] >>>") // the line and the list of candidates are gone

	// Three goroutines on 2 Ps: runnext holds the last one spawned, behind
	// the runtime's G5 and G6, queued by runtime.main's start-up.
	if out := p.line(":runq", "[0s] >>>"); !strings.Contains(out, "runnext=G7  ring=[G5 G6]") || !strings.Contains(out, "ring=[G17]") {
		t.Errorf(":runq after three spawns:\n%s", out)
	}
	// The other P runs the runtime's G17, which parks for good.
	if out := p.line(":step", "[0s] >>>"); !strings.Contains(out, "G17   GoStart") {
		t.Errorf(":step 1:\n%s", out)
	}
	if out := p.line(":step", "[0s] >>>"); !strings.Contains(out, `G17   GoBlock        reason="GOMAXPROCS updater (idle)"`) {
		t.Errorf(":step 2:\n%s", out)
	}
	if out := p.line(":runq", "[0s] >>>"); !strings.Contains(out, "runnext=G7  ring=[G5 G6]") || !strings.Contains(out, "schedtick=4  curg=-  runnext=-   ring=[]") {
		t.Errorf(":runq after G17 parked:\n%s", out)
	}
	// States are coloured.
	mark = len(strings.TrimRight(p.screen(), "\n"))
	p.line(":ps", "[0s] >>>")
	if s := p.screen()[mark:]; !strings.Contains(s, "[\x1b[33mrunnable\x1b[39m]") || !strings.Contains(s, "[\x1b[34mrepl input\x1b[39m]") {
		t.Errorf(":ps has no colours:\n%q", s)
	}
	if out := p.line(":run", "[2ms] >>>"); !strings.Contains(out, "worker 1 done at 2000000") {
		t.Errorf(":run:\n%s", out)
	}

	// Ctrl-C cancels a statement that runs forever; the session goes on.
	// Each line is on the screen before the next is typed, so that the
	// mark is after every prompt the loop's start can print.
	p.line("n = 0", "[2ms] >>>")
	mark = len(p.plain())
	p.send("while True: n += 1", "Enter")
	p.waitFor(mark, "while True: n += 1\n")
	mark = len(p.plain())
	p.send("Enter")
	time.Sleep(500 * time.Millisecond)
	if s := p.plain()[mark:]; strings.Contains(s, ">>>") {
		t.Fatalf("the loop ended by itself:\n%s", s)
	}
	p.send("C-c")
	p.waitFor(mark, "schedlab: interrupted")
	p.waitFor(mark, "[2ms] >>>")
	if out := p.line("n > 1000", "[2ms] >>>"); !strings.Contains(out, "True") {
		t.Errorf("after Ctrl-C, n > 1000:\n%s", out)
	}

	// Ctrl-D leaves, with exit status 0, and the history is kept.
	mark = len(p.plain())
	p.send("C-d")
	p.waitFor(mark, "exit status 0")
	hist, err := os.ReadFile(filepath.Join(state, "schedlab", "history"))
	if err != nil || !bytes.Contains(hist, []byte("while True: n += 1\n")) || !bytes.Contains(hist, []byte(":runq\n")) {
		t.Errorf("history: %v\n%s", err, hist)
	}
}
