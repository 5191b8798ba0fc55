// Package examples holds schedlab's example experiments, each a small
// lesson (README.md lists them), embedded for programs that offer them
// without a checkout: the playground's examples menu.
package examples

import "embed"

// FS holds every example script, *.star, at its top.
//
//go:embed *.star
var FS embed.FS
