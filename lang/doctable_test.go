package lang

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// noGoConstruct are the builtins that stand for no construct a Go
// program writes, so that docs/language.md's "Go → schedlab" table has no
// row for them (the Builtins table above it has one).
var noGoConstruct = map[string]string{
	"park":    "the runtime's gopark, for building synchronization by hand",
	"ready":   "the runtime's goready",
	"current": "getg(), which Go code does not call",
	"work":    "a loop that burns CPU: no one construct",
	"syscall": "a blocking system call of some duration",
	"stats":   "the scheduler's counters",
	"sched":   "the scheduler's state at one instant (GODEBUG=scheddetail=1's lines), which no Go program reads",
	"print":   "Starlark's own print, not fmt's",
	"traffic": "a load generator on another host, outside the Go program",
}

// goConstructs are Go's spellings that the table must have a row for:
// the vocabulary of issue 13, each looked for in the Go column.
var goConstructs = []string{
	"go f(x)", "runtime.Gosched()", "runtime.GOMAXPROCS(n)",
	"make(chan T)", "var ch chan T", "ch <- v", "v, ok := <-ch", "close(ch)", "cap(ch)",
	"for v := range ch", "select {", "default:", "nil channel", "select {}", "reflect.Select",
	"time.Sleep(d)", "time.Now()", "time.Since", "time.After(d)", "time.NewTimer(d)", "t.Reset(d)",
	"time.NewTicker(d)", "time.Tick(d)", "time.AfterFunc(d, f)",
	"sync.Mutex", "sync.RWMutex", "sync.NewCond", "Broadcast", "sync.Once", "sync.WaitGroup", "`Go`",
	"atomic.Int64", "CompareAndSwap", "semaphore.NewWeighted(n)", "TryAcquire",
	"context.Background()", "context.WithCancel(ctx)", "context.WithTimeout(ctx, d)", "WithDeadline(ctx, t)",
	"ctx.Done()", "ctx.Err()",
	"fmt.Println", "fmt.Printf", "fmt.Sprintf", "panic(msg)",
	"func f(", "x := v", "x++", "defer f()", "for {", "recover()", "calls itself",
}

// TestGoTable checks docs/language.md's "Go → schedlab" table: every
// builtin is in its schedlab column unless it stands for no Go construct
// (noGoConstruct), and every Go construct of goConstructs has a row.
func TestGoTable(t *testing.T) {
	data, err := os.ReadFile("../docs/language.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	start := strings.Index(doc, "\n## Go → schedlab\n")
	if start < 0 {
		t.Fatal(`docs/language.md has no section "## Go → schedlab"`)
	}
	section := doc[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	var goCol, slCol strings.Builder
	rows := 0
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| Go |") {
			continue
		}
		// The cell boundaries are the " | " outside backquotes.
		cells := splitRow(line)
		if len(cells) != 2 {
			t.Errorf("a row of the table with %d cells, want 2: %s", len(cells), line)
			continue
		}
		rows++
		goCol.WriteString(cells[0] + "\n")
		slCol.WriteString(cells[1] + "\n")
	}
	if rows < 30 {
		t.Fatalf("the table has %d rows", rows)
	}
	code := regexp.MustCompile("`[^`]*`")
	spans := strings.Join(code.FindAllString(slCol.String(), -1), " ")
	var names []string
	for name := range Builtins() {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if _, ok := noGoConstruct[name]; ok {
			continue
		}
		if !regexp.MustCompile(`(^|[^a-z_.])` + regexp.QuoteMeta(name) + `\b`).MatchString(spans) {
			t.Errorf("builtin %s is not in the schedlab column of docs/language.md's \"Go → schedlab\" table (or add it to noGoConstruct, saying why)", name)
		}
	}
	for name := range noGoConstruct {
		if _, ok := Builtins()[name]; !ok {
			t.Errorf("noGoConstruct names %s, which is no builtin", name)
		}
	}
	for _, c := range goConstructs {
		if !strings.Contains(goCol.String(), c) {
			t.Errorf("the Go column of docs/language.md's \"Go → schedlab\" table has no %q", c)
		}
	}
}

// splitRow splits a Markdown table row into its cells, ignoring a | inside
// backquotes.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(strings.TrimSuffix(line, "|"), "|")
	var cells []string
	var cur strings.Builder
	inCode := false
	for _, r := range line {
		switch {
		case r == '`':
			inCode = !inCode
			cur.WriteRune(r)
		case r == '|' && !inCode:
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}
