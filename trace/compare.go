// The compare page: timelines one above the other, on one time axis.
//
// `schedlab timeline REAL.trace --compare SIM.trace` shows a real Go
// program's trace and its simulated twin together. Each is a timeline
// page of its own (timeline.go), whole; compare.html holds them in
// iframes made from the pages themselves (srcdoc), so the result is one
// self-contained file like a timeline. Its script keeps the views of the
// panes together through the timelines' window.__schedlab.view/setView:
// both runs start at 0 (the first event), the first view fits the longer
// run, and zooming or panning one moves the other.

package trace

import (
	_ "embed"
	"html/template"
	"io"
)

//go:embed compare.html
var compareHTML string

// compareTemplate renders the page.
var compareTemplate = template.Must(template.New("compare.html").Parse(compareHTML))

// A ComparePane is one run of a compare page.
type ComparePane struct {
	Title string // shown above the run
	Page  []byte // the run's timeline page, as a Timeline writes it
}

// WriteCompare writes a self-contained HTML page showing the timelines
// of panes one above the other, on one time axis.
func WriteCompare(w io.Writer, title string, panes []ComparePane) error {
	type pane struct{ Title, Page string }
	data := struct {
		Title string
		Panes []pane
	}{Title: title}
	for _, p := range panes {
		data.Panes = append(data.Panes, pane{p.Title, string(p.Page)})
	}
	return compareTemplate.Execute(w, data)
}
