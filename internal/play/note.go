package play

import (
	"errors"
	"strings"

	"github.com/schedlab/schedlab/docs"
)

// The sections of docs/runtime.md that the page's note on the model shows.
const (
	modelHeading = "## The model in one paragraph"
	diffHeading  = "## Where schedlab differs from Go"
)

// A Note is what the page always shows of what the engine models and
// what it simplifies. It is read from docs/runtime.md, so that the page
// and the document have one text.
type Note struct {
	Model string     `json:"model"` // the paragraph on the model, as Markdown
	Diffs []NoteItem `json:"diffs"` // the list of differences from Go
	Doc   string     `json:"doc"`   // where the full text is
}

// A NoteItem is one difference: its bold lead ("`_Psyscall`.") and the
// rest of the item, as Markdown.
type NoteItem struct {
	Title string `json:"title"`
	Text  string `json:"text"`
}

// ModelNote returns the note, read from docs/runtime.md.
func ModelNote() (*Note, error) { return parseNote(docs.Runtime) }

// parseNote reads the note from the text of runtime.md: the paragraphs of
// the model's section and the items of the differences' section.
func parseNote(md string) (*Note, error) {
	n := &Note{Doc: "docs/runtime.md"}
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, diffHeading) {
			n.Doc += "#" + anchor(strings.TrimPrefix(line, "## "))
			break
		}
	}
	model := section(md, modelHeading)
	n.Model = strings.Join(strings.Fields(model), " ")
	var item []string
	flush := func() {
		if len(item) == 0 {
			return
		}
		text := strings.Join(item, " ")
		item = nil
		it := NoteItem{Text: text}
		if rest, ok := strings.CutPrefix(text, "**"); ok {
			if title, body, ok := strings.Cut(rest, "**"); ok {
				it = NoteItem{Title: title, Text: strings.TrimSpace(body)}
			}
		}
		n.Diffs = append(n.Diffs, it)
	}
	for _, line := range strings.Split(section(md, diffHeading), "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "- "):
			flush()
			item = append(item, strings.TrimPrefix(t, "- "))
		case t == "":
			flush()
		case item != nil:
			item = append(item, t)
		}
	}
	flush()
	if n.Model == "" || len(n.Diffs) == 0 {
		return nil, errors.New("docs/runtime.md has no section " + modelHeading + " or no list under " + diffHeading)
	}
	return n, nil
}

// section returns the text under the heading that starts with heading, up
// to the next heading of its level.
func section(md, heading string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "## ") {
			if in {
				break
			}
			in = strings.HasPrefix(line, heading)
			continue
		}
		if in {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// anchor returns the anchor a Markdown renderer such as GitHub's gives a
// heading: lower case, blanks as hyphens, other punctuation dropped.
func anchor(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || 'a' <= r && r <= 'z' || '0' <= r && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}
