// Reports of a test run for CI systems: JUnit XML and JSON lines.

package golden

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// messageLines is how many lines of a diff a failure's message holds: the
// CI system shows it in its list of failures; the whole diff is the
// failure's text.
const messageLines = 10

// statusNames are the statuses as the reports write them.
var statusNames = map[Status]string{
	Pass: "pass", Fail: "fail", NoGolden: "no golden", Updated: "updated", Created: "created", Error: "error",
}

// failed reports whether o is a failure, with its message and its full
// text.
func (o Outcome) failed() (msg, text string, ok bool) {
	switch o.Status {
	case Fail:
		d := string(o.Diff)
		lines := strings.SplitAfter(d, "\n")
		if len(lines) > messageLines {
			lines = lines[:messageLines]
		}
		return strings.TrimRight(strings.Join(lines, ""), "\n"), d, true
	case NoGolden:
		m := fmt.Sprintf("no golden %s (-update creates it)", o.Golden)
		return m, m, true
	case Error:
		return o.Err.Error(), o.Err.Error(), true
	}
	return "", "", false
}

// WriteJUnit writes sum as a JUnit XML report, one testsuite named name
// with one testcase per script (its path as the name), a failure's
// message the first lines of the diff and its text the whole diff.
func WriteJUnit(w io.Writer, name string, sum Summary) error {
	type failure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		Time      string   `xml:"time,attr"`
		Failure   *failure `xml:"failure,omitempty"`
	}
	type testsuite struct {
		XMLName  xml.Name   `xml:"testsuite"`
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Time     string     `xml:"time,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	ts := testsuite{Name: name, Tests: len(sum.Cases)}
	var total float64
	for _, o := range sum.Cases {
		tc := testcase{Name: o.Script, Classname: name, Time: fmt.Sprintf("%.3f", o.Time.Seconds())}
		total += o.Time.Seconds()
		if msg, text, ok := o.failed(); ok {
			ts.Failures++
			tc.Failure = &failure{Message: msg, Type: statusNames[o.Status], Text: text}
		}
		ts.Cases = append(ts.Cases, tc)
	}
	ts.Time = fmt.Sprintf("%.3f", total)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(ts); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// WriteJSON writes sum as JSON lines, one object per script: script,
// golden, status (pass, fail, no golden, updated, created, error),
// seconds, and for a failure message (the first lines of the diff, or
// the error) and diff.
func WriteJSON(w io.Writer, sum Summary) error {
	type line struct {
		Script  string  `json:"script"`
		Golden  string  `json:"golden"`
		Status  string  `json:"status"`
		Seconds float64 `json:"seconds"`
		Message string  `json:"message,omitempty"`
		Diff    string  `json:"diff,omitempty"`
	}
	enc := json.NewEncoder(w)
	for _, o := range sum.Cases {
		l := line{Script: o.Script, Golden: o.Golden, Status: statusNames[o.Status], Seconds: o.Time.Seconds()}
		if msg, _, ok := o.failed(); ok {
			l.Message = msg
			if o.Status == Fail {
				l.Diff = string(o.Diff)
			}
		}
		if err := enc.Encode(l); err != nil {
			return err
		}
	}
	return nil
}
