package runtime

import (
	"fmt"
	"strings"
)

// textTracer renders events compactly, for tests that pin event sequences.
type textTracer struct{ b strings.Builder }

func (t *textTracer) Event(ev *Event) {
	fmt.Fprintf(&t.b, "%d P%d M%d G%d %v", ev.Time, ev.P, ev.M, ev.G, ev.Kind)
	if ev.G2 != 0 {
		fmt.Fprintf(&t.b, " g2=G%d", ev.G2)
	}
	if ev.P2 >= 0 {
		fmt.Fprintf(&t.b, " p2=P%d", ev.P2)
	}
	if ev.Arg != 0 {
		fmt.Fprintf(&t.b, " arg=%d", ev.Arg)
	}
	if ev.Reason != "" {
		fmt.Fprintf(&t.b, " %q", ev.Reason)
	}
	t.b.WriteByte('\n')
}
