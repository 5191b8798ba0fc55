package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/schedlab/schedlab/internal/cli"
	"github.com/schedlab/schedlab/internal/play"
	"github.com/schedlab/schedlab/internal/play/site"
)

const playSynopsis = `schedlab play [--source DIR] [--addr HOST:PORT]
       schedlab play [--source DIR] --out DIR
       schedlab play [--base URL] [--step N] --link script.star [run flags]`

const playHelpText = `Play builds the schedlab playground and serves it on this machine: a web
page in which schedlab's engine, compiled to WebAssembly, runs in the
browser. It has an editor with every example, the run flags, the output,
the text trace and the HTML timeline of a run, the M:P:G picture live with
stepping (Step, Step N, Back, Run to end), explore with its class table,
and share links. docs/playground.md describes it.

The engine is built from schedlab's source with the go command
(GOOS=js GOARCH=wasm): the checkout that holds the current directory, or
--source DIR's; a schedlab installed with 'go install
github.com/schedlab/schedlab/cmd/schedlab@VERSION' and run elsewhere
builds from that version's source in the module cache (go mod download
fetches it), and one built in a checkout (go install ./cmd/schedlab)
from that checkout, while it is there. In a checkout,

	go run ./cmd/schedlab play

prints the URL to open. --out DIR writes the site instead: a directory of
static files that any static file server can serve (it loads nothing from
anywhere else; browsers do not run it from file:// URLs). DIR must be new,
empty, or a site written before; the files are written to a temporary
directory first and then moved into place.

--link prints the share link of a script with its run flags (as
'schedlab run' takes them, after the script's name): the script, the
flags, the engine's version and --step travel in the link's fragment, and
the page opens at that step. --base is the address of the page the link
points to.`

// defaultPlayAddr is where play serves the page.
const defaultPlayAddr = "127.0.0.1:8080"

// playCmd is `schedlab play`.
func playCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("schedlab play", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("addr", defaultPlayAddr, "serve the page at `HOST:PORT`")
	out := fs.String("out", "", "write the static site to `DIR` instead of serving it")
	base := fs.String("base", "http://"+defaultPlayAddr+"/", "with --link, the `URL` of the page the link opens")
	step := fs.Int("step", 0, "with --link, the scheduling event `N` the page opens at (0: none)")
	fs.String("link", "", "print the share link of `script.star` with the run flags that follow it")
	source := fs.String("source", "", "build the engine from the schedlab checkout at `DIR` (default: the one that holds the current directory, else, for an installed schedlab, its version's source in the module cache)")

	// The run flags after --link's script are not play's.
	var linkFile string
	var runFlags []string
	for i, a := range args {
		if a == "--link" || a == "-link" {
			if i+1 < len(args) {
				linkFile, runFlags = args[i+1], args[i+2:]
			} else {
				linkFile = "-"
			}
			args = args[:i]
			break
		}
		if v, ok := strings.CutPrefix(strings.TrimLeft(a, "-"), "link="); ok && strings.HasPrefix(a, "-") {
			linkFile, runFlags = v, args[i+1:]
			args = args[:i]
			break
		}
	}
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		printHelp(stdout, playSynopsis, playHelpText, fs)
		return 0
	}
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err == nil && linkFile == "-" {
		err = errors.New("--link wants a script")
	}
	if err == nil && *step < 0 {
		err = fmt.Errorf("--step must be at least 0, got %d", *step)
	}
	if err != nil {
		fmt.Fprintf(stderr, "schedlab play: %v\nusage: %s (see 'schedlab play -h')\n", err, playSynopsis)
		return 2
	}

	root, err := playRoot(*source, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "schedlab play: %v\n", err)
		return 1
	}
	b := &site.Builder{Root: root}
	switch {
	case linkFile != "":
		return playLink(b, linkFile, runFlags, *base, *step, stdout, stderr)
	case *out != "":
		return playOut(b, *out, stdout, stderr)
	}
	return playServe(b, *addr, stdout, stderr)
}

// playRoot returns the source tree the engine is built from: --source's,
// else the checkout that holds the current directory, else, for a
// schedlab installed at a version of its module, that version's source in
// the module cache (go mod download fetches it if it is not there), else
// the checkout this schedlab was built in, if it is still there (said on
// stderr: the tree may have changed since).
func playRoot(source string, stderr io.Writer) (string, error) {
	if source != "" {
		return site.FindRoot(source)
	}
	root, err := site.FindRoot(".")
	if err == nil {
		return root, nil
	}
	if v, ok := site.InstalledVersion(); ok {
		dir, derr := site.ModuleSource("", v)
		if derr != nil {
			return "", fmt.Errorf("%v; and the module cache has no source of this schedlab's version: %v", err, derr)
		}
		return site.FindRoot(dir)
	}
	if root, ok := site.BuiltFrom(); ok {
		fmt.Fprintf(stderr, "schedlab play: the engine is built from %s, the checkout this schedlab was built in\n", root)
		return root, nil
	}
	return "", err
}

// playLink prints the share link of a script.
func playLink(b *site.Builder, file string, runFlags []string, base string, step int, stdout, stderr io.Writer) int {
	src, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(stderr, "schedlab play: %v\n", err)
		return 1
	}
	name := filepath.Base(file)
	if _, err := cli.PageSettings(name, src, runFlags); err != nil {
		io.WriteString(stderr, err.Error())
		return 2
	}
	version, err := b.Version()
	if err != nil {
		fmt.Fprintf(stderr, "schedlab play: %v\n", err)
		return 1
	}
	frag, err := play.EncodeLink(play.Link{Version: version, Name: name, Script: string(src), Flags: runFlags, Step: step})
	if err != nil {
		fmt.Fprintf(stderr, "schedlab play: %s: %v\n", file, err)
		return 1
	}
	fmt.Fprintf(stdout, "%s#%s\n", strings.TrimSuffix(base, "#"), frag)
	return 0
}

// playOut writes the site to dir: built in a new directory next to it,
// then moved into place.
func playOut(b *site.Builder, dir string, stdout, stderr io.Writer) int {
	if err := checkOutDir(dir, b.Root); err != nil {
		fmt.Fprintf(stderr, "schedlab play: --out %s: %v\n", dir, err)
		return 1
	}
	parent := filepath.Dir(filepath.Clean(dir))
	tmp, err := os.MkdirTemp(parent, ".schedlab-play-*")
	if err != nil {
		fmt.Fprintf(stderr, "schedlab play: --out %s: %v\n", dir, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	fmt.Fprintln(stderr, "schedlab play: building the engine (GOOS=js GOARCH=wasm)...")
	version, err := b.Build(tmp)
	if err == nil {
		err = moveInto(tmp, dir)
	}
	if err != nil {
		fmt.Fprintf(stderr, "schedlab play: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote the playground (engine %s) to %s\n", version, dir)
	return 0
}

// checkOutDir refuses an --out that is not new, empty or a site, and one
// that holds the source tree.
func checkOutDir(dir, root string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if rel, err := filepath.Rel(abs, root); err == nil && !strings.HasPrefix(rel, "..") {
		return errors.New("it holds the source tree")
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "engine.wasm")); err != nil {
		return errors.New("it exists and is not a playground site; name a new or empty directory")
	}
	return nil
}

// moveInto moves the files of tmp to dir: the directory itself if dir
// does not exist, else file by file.
func moveInto(tmp, dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.Rename(tmp, dir); err != nil {
			return err
		}
		return os.Chmod(dir, 0o755)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.Rename(filepath.Join(tmp, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// playServe builds the site in a temporary directory and serves it until
// the process is interrupted.
func playServe(b *site.Builder, addr string, stdout, stderr io.Writer) int {
	tmp, err := os.MkdirTemp("", "schedlab-play-*")
	if err != nil {
		fmt.Fprintf(stderr, "schedlab play: %v\n", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	fmt.Fprintln(stderr, "schedlab play: building the engine (GOOS=js GOARCH=wasm)...")
	version, err := b.Build(tmp)
	if err != nil {
		fmt.Fprintf(stderr, "schedlab play: %v\n", err)
		return 1
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "schedlab play: %v\n", err)
		return 1
	}
	srv := &http.Server{Handler: siteHandler(tmp)}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	go func() {
		<-sig
		srv.Close()
	}()
	fmt.Fprintf(stdout, "schedlab play: the playground (engine %s) is at http://%s/ (Ctrl-C stops)\n", version, ln.Addr())
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintf(stderr, "schedlab play: %v\n", err)
		return 1
	}
	return 0
}

// siteHandler serves the static site in dir, as any static file server
// would, telling the browser to check for a newer engine on each load.
func siteHandler(dir string) http.Handler {
	files := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}

func playHelp(w io.Writer) { playCmd([]string{"-h"}, w, io.Discard) }
