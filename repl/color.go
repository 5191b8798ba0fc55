// Colours, through github.com/fatih/color: on a terminal only, never with
// NO_COLOR.

package repl

import (
	"os"
	"strings"

	"github.com/fatih/color"
	"github.com/mattn/go-isatty"

	"github.com/schedlab/schedlab/runtime"
)

// ColorWanted reports whether output to f should be coloured: f is a
// terminal, NO_COLOR is unset or empty, and TERM is not "dumb".
func ColorWanted(f *os.File) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	return IsTerminal(f)
}

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// A palette paints text, or leaves it plain.
type palette struct {
	on    bool
	cache map[color.Attribute]*color.Color
}

func newPalette(on bool) *palette {
	return &palette{on: on, cache: make(map[color.Attribute]*color.Color)}
}

// paint returns s in colour a, or s itself on a plain palette.
func (p *palette) paint(a color.Attribute, s string) string {
	if !p.on || s == "" {
		return s
	}
	c := p.cache[a]
	if c == nil {
		c = color.New(a)
		c.EnableColor()
		p.cache[a] = c
	}
	return c.Sprint(s)
}

// time paints the virtual time of the prompt.
func (p *palette) time(s string) string { return p.paint(color.FgCyan, s) }

// Status paints a goroutine's status for the views (views.Painter).
func (p *palette) Status(s runtime.Status, text string) string { return p.paint(stateColor(s), text) }

// PStatus paints a P's status for the views (views.Painter).
func (p *palette) PStatus(s runtime.PStatus, text string) string { return p.pstatus(s, text) }

func stateColor(s runtime.Status) color.Attribute {
	switch s {
	case runtime.Grunning:
		return color.FgGreen
	case runtime.Grunnable, runtime.Gpreempted:
		return color.FgYellow
	case runtime.Gwaiting:
		return color.FgBlue
	case runtime.Gsyscall:
		return color.FgMagenta
	case runtime.Gdead, runtime.Gleaked:
		return color.FgRed
	}
	return color.Reset
}

// pstatus paints a P's status.
func (p *palette) pstatus(s runtime.PStatus, text string) string {
	switch s {
	case runtime.Prunning:
		return p.paint(color.FgGreen, text)
	case runtime.Psyscall:
		return p.paint(color.FgMagenta, text)
	case runtime.Pidle:
		return p.paint(color.Faint, text)
	}
	return text
}

// eventColor is the colour of each kind of event's name.
var eventColor = map[runtime.EventKind]color.Attribute{
	runtime.EvGoCreate:       color.FgYellow,
	runtime.EvGoStart:        color.FgGreen,
	runtime.EvGoSched:        color.FgRed,
	runtime.EvGoPreempt:      color.FgRed,
	runtime.EvGoBlock:        color.FgBlue,
	runtime.EvGoSleep:        color.FgBlue,
	runtime.EvGoUnblock:      color.FgCyan,
	runtime.EvTimerFire:      color.FgCyan,
	runtime.EvGoSyscallBegin: color.FgMagenta,
	runtime.EvGoSyscallEnd:   color.FgMagenta,
	runtime.EvProcSteal:      color.FgMagenta,
	runtime.EvRunqSteal:      color.FgHiMagenta,
	runtime.EvGlobalRunqPut:  color.FgHiMagenta,
	runtime.EvGlobalRunqGet:  color.FgHiMagenta,
	runtime.EvProcResize:     color.Bold,
	runtime.EvGoDestroy:      color.Faint,
	runtime.EvProcStart:      color.Faint,
	runtime.EvProcStop:       color.Faint,
	runtime.EvMStart:         color.Faint,
	runtime.EvMStop:          color.Faint,
	runtime.EvMSpinning:      color.Faint,
}

// event paints the name of the event in line, a line of the text trace.
func (p *palette) event(ev *runtime.Event, line string) string {
	a, ok := eventColor[ev.Kind]
	if !p.on || !ok {
		return line
	}
	name := ev.Kind.String()
	i := strings.Index(line, " "+name)
	if i < 0 {
		return line
	}
	i++
	return line[:i] + p.paint(a, name) + line[i+len(name):]
}
