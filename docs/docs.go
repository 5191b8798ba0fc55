// Package docs holds schedlab's documentation, and embeds the pages that
// programs show as well, so that the text has one source: the
// playground's note on what the engine models is the list of differences
// in runtime.md.
package docs

import _ "embed"

// Runtime is runtime.md: the scheduler's rules and where schedlab differs
// from Go.
//
//go:embed runtime.md
var Runtime string
