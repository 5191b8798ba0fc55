// Share links: a run's whole state in the URL fragment.
//
// A playground link carries the script, its run flags, the schedlab
// version that made it and the step being looked at, in the fragment, so
// no server ever sees it and no shortener is needed; since runs are
// deterministic, the page that opens it replays the run to that step and
// shows what the sender saw. The format (docs/playground.md):
//
//	#<format>.<encoding>.<data>
//
// format is LinkFormat (1); encoding is "z" for data that is the raw
// DEFLATE (RFC 1951) of the payload, or "j" for the payload itself,
// whichever is shorter; data is base64url without padding (RFC 4648 §5);
// the payload is a UTF-8 JSON object:
//
//	{"v":"devel-3f2a...","name":"hello.star","script":"...","flags":["--procs=4"],"step":12}
//
// v is the version of the engine that made the link (Version); a page of
// another version opens the link with a warning that the engine differs.
// step 0 means no step: the page just runs the script. The page's
// play.js reads and writes the same format; EncodeLink and DecodeLink are
// its Go side, for `schedlab play --link` and the tests.

package play

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// LinkFormat is the version of the format of share links.
const LinkFormat = 1

// MaxLinkScript is the longest script a link may carry, in bytes.
const MaxLinkScript = 64 << 10

// A Link is what a share link carries.
type Link struct {
	Version string   `json:"v"`      // the engine that made it (Version)
	Name    string   `json:"name"`   // the script's file name
	Script  string   `json:"script"` // its source
	Flags   []string `json:"flags"`  // run flags, as `schedlab run` takes them
	Step    int      `json:"step"`   // the event the page shows; 0 for none
}

// EncodeLink returns the fragment of a link to l, without the '#'.
func EncodeLink(l Link) (string, error) {
	if len(l.Script) > MaxLinkScript {
		return "", fmt.Errorf("the script is %d bytes; a link carries at most %d", len(l.Script), MaxLinkScript)
	}
	if l.Flags == nil {
		l.Flags = []string{}
	}
	payload, err := json.Marshal(l)
	if err != nil {
		return "", err
	}
	var z bytes.Buffer
	w, _ := flate.NewWriter(&z, flate.BestCompression)
	w.Write(payload)
	w.Close()
	enc, data := "j", payload
	if z.Len() < len(payload) {
		enc, data = "z", z.Bytes()
	}
	return fmt.Sprintf("%d.%s.%s", LinkFormat, enc, base64.RawURLEncoding.EncodeToString(data)), nil
}

// Errors of DecodeLink, which the page shows in the same words.
var (
	ErrLinkCorrupt = errors.New("this link is damaged: its data cannot be read")
	ErrLinkTooLong = fmt.Errorf("this link's script is longer than the %d KiB a link may carry", MaxLinkScript>>10)
)

// A NewerFormatError is a link made in a newer format than this page
// reads.
type NewerFormatError struct{ Format int }

func (e *NewerFormatError) Error() string {
	return fmt.Sprintf("this link was made by a newer schedlab playground (link format %d; this one reads format %d)", e.Format, LinkFormat)
}

// DecodeLink reads the fragment of a link, without the '#'.
func DecodeLink(frag string) (Link, error) {
	var l Link
	parts := strings.SplitN(frag, ".", 3)
	if len(parts) != 3 {
		return l, ErrLinkCorrupt
	}
	format, err := strconv.Atoi(parts[0])
	if err != nil || format < 1 {
		return l, ErrLinkCorrupt
	}
	if format > LinkFormat {
		return l, &NewerFormatError{format}
	}
	data, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return l, ErrLinkCorrupt
	}
	// A payload is JSON of a script of at most MaxLinkScript bytes; JSON
	// escapes may make it up to six times longer.
	const maxPayload = 6*MaxLinkScript + 4096
	switch parts[1] {
	case "j":
	case "z":
		data, err = io.ReadAll(io.LimitReader(flate.NewReader(bytes.NewReader(data)), maxPayload+1))
		if err != nil {
			return l, ErrLinkCorrupt
		}
	default:
		return l, ErrLinkCorrupt
	}
	if len(data) > maxPayload {
		return l, ErrLinkTooLong
	}
	if err := json.Unmarshal(data, &l); err != nil || l.Step < 0 {
		return Link{}, ErrLinkCorrupt
	}
	if len(l.Script) > MaxLinkScript {
		return Link{}, ErrLinkTooLong
	}
	return l, nil
}
