// Small appenders shared by the writers.
//
// Every writer builds its output by appending to a reusable []byte, the way
// strconv.Append* do, instead of going through fmt: a trace can hold
// millions of events and fmt's reflection and interface boxing would be the
// whole cost of writing it. The functions here are the pieces the writers
// have in common, and each one is deterministic by construction: integers
// only (no float formatting, whose shortest-representation rules differ by
// nothing but are easy to get wrong), no maps, no host state.
//
//   - Virtual times are printed as microseconds with exactly three decimals
//     ("12.345"), computed with integer division, so 12345ns is always
//     "12.345" and never "12.344999".
//   - Durations are printed as Go's time.Duration.String prints them
//     ("1.5ms", "20µs"), reimplemented to append without allocating.
//   - Strings are quoted with Go syntax in the text trace unless they are
//     plain words, and escaped per RFC 8259 in JSON.

package trace

import (
	"strconv"
	"unicode/utf8"
)

// appendMicros appends the virtual time ns (nanoseconds) as microseconds
// with exactly three decimals: 12345 → "12.345", 0 → "0.000".
func appendMicros(b []byte, ns int64) []byte {
	u := uint64(ns)
	if ns < 0 {
		b = append(b, '-')
		u = -u
	}
	b = strconv.AppendUint(b, u/1000, 10)
	f := u % 1000
	return append(b, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
}

// spaces is a run of blanks for padding.
const spaces = "                                "

// padLeft right-aligns the text appended to b since start in a field of
// width bytes, inserting blanks before it. Text wider than the field is
// left as it is.
func padLeft(b []byte, start, width int) []byte {
	n := len(b) - start
	if n >= width {
		return b
	}
	pad := width - n
	b = append(b, spaces[:pad]...)
	copy(b[start+pad:], b[start:start+n])
	copy(b[start:start+pad], spaces)
	return b
}

// padRight left-aligns the text appended to b since start in a field of
// width bytes, appending blanks after it.
func padRight(b []byte, start, width int) []byte {
	if n := len(b) - start; n < width {
		b = append(b, spaces[:width-n]...)
	}
	return b
}

// appendID appends an id with its letter ("P3", "M0", "G12"), or "-" when
// the id is none.
func appendID(b []byte, letter byte, id int64, none bool) []byte {
	if none {
		return append(b, '-')
	}
	b = append(b, letter)
	return strconv.AppendInt(b, id, 10)
}

// appendDuration appends d nanoseconds the way time.Duration(d).String()
// formats it ("0s", "1.5ms", "20µs", "1h2m0.5s"), without allocating.
func appendDuration(b []byte, d int64) []byte {
	// Adapted from time.Duration.format in Go's time package: the digits
	// are written backwards into buf, then appended.
	var buf [32]byte
	w := len(buf)
	u := uint64(d)
	neg := d < 0
	if neg {
		u = -u
	}
	if u < 1e9 {
		// Less than a second: ns, µs or ms with a fraction.
		var prec int
		w--
		buf[w] = 's'
		w--
		switch {
		case u == 0:
			buf[w] = '0'
			return append(b, buf[w:]...)
		case u < 1e3:
			prec = 0
			buf[w] = 'n'
		case u < 1e6:
			prec = 3
			w-- // 'µ' is two bytes
			copy(buf[w:], "µ")
		default:
			prec = 6
			buf[w] = 'm'
		}
		w, u = fmtFrac(buf[:w], u, prec)
		w = fmtInt(buf[:w], u)
	} else {
		w--
		buf[w] = 's'
		w, u = fmtFrac(buf[:w], u, 9)
		w = fmtInt(buf[:w], u%60)
		u /= 60
		if u > 0 {
			w--
			buf[w] = 'm'
			w = fmtInt(buf[:w], u%60)
			u /= 60
			if u > 0 {
				w--
				buf[w] = 'h'
				w = fmtInt(buf[:w], u)
			}
		}
	}
	if neg {
		w--
		buf[w] = '-'
	}
	return append(b, buf[w:]...)
}

// fmtFrac formats the fraction of v/10**prec (e.g., ".12345") into the tail
// of buf, omitting trailing zeros and the point when the fraction is 0. It
// returns the index where the output begins and v/10**prec.
func fmtFrac(buf []byte, v uint64, prec int) (nw int, nv uint64) {
	w := len(buf)
	print := false
	for i := 0; i < prec; i++ {
		digit := v % 10
		print = print || digit != 0
		if print {
			w--
			buf[w] = byte(digit) + '0'
		}
		v /= 10
	}
	if print {
		w--
		buf[w] = '.'
	}
	return w, v
}

// fmtInt formats v into the tail of buf and returns the index where the
// output begins.
func fmtInt(buf []byte, v uint64) int {
	w := len(buf)
	if v == 0 {
		w--
		buf[w] = '0'
	} else {
		for v > 0 {
			w--
			buf[w] = byte(v%10) + '0'
			v /= 10
		}
	}
	return w
}

// isWord reports whether s can be written bare in the text trace: it is not
// empty and holds only ASCII letters, digits and "_.-/:@+", so it contains
// no blank, quote or '=' that would make a line ambiguous.
func isWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '_', c == '.', c == '-', c == '/', c == ':', c == '@', c == '+':
		default:
			return false
		}
	}
	return true
}

// appendWord appends s bare if it is a word (isWord), else Go-quoted.
func appendWord(b []byte, s string) []byte {
	if isWord(s) {
		return append(b, s...)
	}
	return strconv.AppendQuote(b, s)
}

// appendJSONString appends s as a JSON string literal. Invalid UTF-8 becomes
// U+FFFD, control characters and U+2028/U+2029 are escaped; when html is
// set '<', '>' and '&' are escaped too, so the result can sit inside an
// HTML <script> element.
func appendJSONString(b []byte, s string, html bool) []byte {
	b = append(b, '"')
	b = appendJSONStringBody(b, s, html)
	return append(b, '"')
}

// appendJSONStringBody appends s escaped as appendJSONString does, without
// the quotes. It is long by design: one loop over the bytes, with a short
// branch for each kind that needs escaping, on the hot path of every JSON
// writer.
func appendJSONStringBody(b []byte, s string, html bool) []byte {
	const hex = "0123456789abcdef"
	start := 0 // s[start:i] is pending, needing no escape
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!html || (c != '<' && c != '>' && c != '&')) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}
