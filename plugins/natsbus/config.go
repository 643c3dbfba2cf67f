//go:build natsbus

package natsbus

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dsh-go/dsh/events/wire"
	"github.com/dsh-go/dsh/host"
)

// Config is a natsbus entry's config (plugin-protocol.md §2, §4).
type Config struct {
	// URL is the NATS system to connect to: one URL or a comma-separated
	// list (nats://a:4222,nats://b:4222), which may carry a user and
	// password or a token. Exactly one of URL and Embedded.
	URL string `json:"url"`
	// Credentials is a NATS credentials file (a user JWT and its nkey
	// seed, as `nsc` writes them) for URL; relative paths are taken
	// against the deployment file's directory. It must be outside the
	// workspace. Default: none.
	Credentials string `json:"credentials"`
	// Embedded runs a single-node nats-server with JetStream inside the
	// process, reached by in-process connections only (unless Listen).
	Embedded bool `json:"embedded"`
	// Listen makes the embedded server listen on this host:port as well
	// (a port of 0 picks a free one), with a token it generates in the
	// 0600 file `token` of DataDir. Only with Embedded. Default: no port.
	Listen string `json:"listen"`
	// DataDir is the embedded server's JetStream directory; it must be
	// outside the workspace. It is made (mode 0700) when absent; an
	// existing one is used only when no other user may write it and it
	// is empty or a natsbus data directory (Marker, or jetstream/), and
	// its mode is never changed. Only with Embedded. Default:
	// $XDG_STATE_HOME/dshhost/natsbus/<sha256 of the workspace's real
	// path> (~/.local/state when XDG_STATE_HOME is unset).
	DataDir string `json:"dataDir"`
	// Subject is the prefix of every subject the entry uses. Default
	// "dsh".
	Subject string `json:"subject"`
	// Host is this server's name in subjects and events; bytes outside
	// [A-Za-z0-9_-] (dots included) become `_`. Default: the machine's
	// hostname.
	Host string `json:"host"`
	// Audit, when set, publishes every fs/observed and conversation/closed
	// to JetStream. Default: no audit.
	Audit *Audit `json:"audit"`
	// Guards are the intents remote guards are asked about:
	// fs/write-intent, fs/edit-intent, fs/remove-intent. Default: none.
	Guards []string `json:"guards"`
	// Timeout bounds each intent request (and, at start, the wait for the
	// first connection). Default 2s.
	Timeout time.Duration `json:"timeout"`
	// OnFailure is what a guard that cannot answer does (§2): block (the
	// call fails with PLUGIN_UNAVAILABLE and writes nothing) or allow (it
	// goes on, with a warning). Default block.
	OnFailure wire.OnFailure `json:"onFailure"`
	// Queue bounds the audit events waiting to be published; when it is
	// full the oldest is dropped and counted. Default 1000.
	Queue int `json:"queue"`
	// MaxArgumentBytes bounds an intent's arguments on the wire, in bytes
	// of JSON; larger ones (or ones that would make the request larger
	// than the server's max_payload) are sent as null with
	// argumentsOmitted. Default 1048576 (1 MiB).
	MaxArgumentBytes int `json:"maxArgumentBytes"`

	// Workspace is the deployment's workspace (config.WorkspaceUser): the
	// base of every target's rel, part of each event's source, and what
	// DataDir and Credentials must stay outside of.
	Workspace string `json:"-"`
}

// Audit is the `audit` key: the JetStream stream the events go to, and the
// limits natsbus gives it when it creates it (an existing stream is used
// as it is).
type Audit struct {
	// Stream is the stream's name. Default DSH_AUDIT.
	Stream string `json:"stream"`
	// MaxAge drops events older than this from a created stream; 0 keeps
	// them. At least 10m (the duplicate window) when set.
	MaxAge time.Duration `json:"maxAge"`
	// MaxBytes bounds a created stream's size, dropping the oldest events
	// past it; 0 is no bound.
	MaxBytes int64 `json:"maxBytes"`
	// Replicas is a created stream's replica count in a cluster (1 to 5).
	// Default 1.
	Replicas int `json:"replicas"`
}

// MarshalJSON writes the file form of the keys (`dshhost config`):
// durations as strings such as "2s", which load back, and url without its
// passwords and tokens, as `dshhost plugins` shows it (the printed
// deployment takes the real one from DSH_NATSBUS_URL again).
func (c Config) MarshalJSON() ([]byte, error) {
	type keys Config // without this method
	return json.Marshal(struct {
		keys
		URL     string `json:"url"`
		Timeout string `json:"timeout"`
	}{keys: keys(c), URL: redact(c.URL), Timeout: c.Timeout.String()})
}

// MarshalJSON writes the file form of the audit keys: maxAge as a
// duration string, the stream's name and replicas as they take effect.
func (a Audit) MarshalJSON() ([]byte, error) {
	type keys Audit // without this method
	k := keys(a)
	k.Stream, k.Replicas = a.stream(), max(a.Replicas, 1)
	return json.Marshal(struct {
		keys
		MaxAge string `json:"maxAge"`
	}{keys: k, MaxAge: a.MaxAge.String()})
}

// DefaultStream is the audit stream's default name.
const DefaultStream = "DSH_AUDIT"

// DuplicateWindow is the duplicate window of a stream natsbus creates
// (§4): an event retried within it is stored once.
const DuplicateWindow = 10 * time.Minute

// stream returns the stream's name, DefaultStream when unset.
func (a *Audit) stream() string {
	if a.Stream == "" {
		return DefaultStream
	}
	return a.Stream
}

// DefaultConfig returns the defaults: subject dsh, timeout 2s, onFailure
// block, queue 1000, maxArgumentBytes 1 MiB.
func DefaultConfig() Config {
	return Config{Subject: "dsh", Timeout: 2 * time.Second, OnFailure: wire.Block, Queue: 1000,
		MaxArgumentBytes: wire.DefaultMaxArgumentBytes}
}

// UseWorkspace sets Workspace when unset (config.WorkspaceUser).
func (c *Config) UseWorkspace(dir string) {
	if c.Workspace == "" {
		c.Workspace = dir
	}
}

// PathKeys names the keys that hold paths (config.PathKeyer): a relative
// one is taken against the deployment file's directory.
func (c *Config) PathKeys() []string { return []string{"credentials", "dataDir"} }

// intents are the intent events a remote guard can be asked about.
var intents = wire.Intents

var (
	// subjectPrefix is one or more tokens of a subject without wildcards.
	subjectPrefix = regexp.MustCompile(`^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$`)
	// streamName is what JetStream accepts as a stream name and a subject
	// token alike.
	streamName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,255}$`)
)

// urlSchemes are the schemes nats.go connects with.
var urlSchemes = []string{"nats", "tls", "ws", "wss"}

// checkURL returns what is wrong with one server URL of url ("" when
// nothing): it must be <scheme>://host[:port], the scheme one of
// urlSchemes, the port from 1 to 65535. The problem shows the URL without
// its password.
func checkURL(s string) string {
	u, err := url.Parse(s)
	shown := strconv.Quote(redact(s))
	switch {
	case s == "":
		return "an empty server in the list: give nats://host:4222, or several joined by commas"
	case err != nil || u.Host == "" || !slices.Contains(urlSchemes, u.Scheme):
		return fmt.Sprintf("must be a server URL such as nats://host:4222 (nats, tls, ws or wss), not %s", shown)
	case u.Hostname() == "":
		return fmt.Sprintf("the server URL %s has no host", shown)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Sprintf("the port of %s must be a number from 1 to 65535, not %q", shown, p)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return fmt.Sprintf("the server URL %s has an empty port", shown)
	}
	return ""
}

// Validate checks every key before apply; each problem is reported at its
// key path, e.g. `url: natsbus: give url (nats://host:4222) or embedded:
// true`.
func (c Config) Validate() error {
	var issues []host.ConfigIssue
	add := func(path, problem string) {
		issues = append(issues, host.ConfigIssue{Path: path, Problem: "natsbus: " + problem})
	}
	switch {
	case c.URL == "" && !c.Embedded:
		add("url", "give url (nats://host:4222) or embedded: true")
	case c.URL != "" && c.Embedded:
		add("embedded", "url and embedded: true exclude each other: connect to a NATS system or run one in the process")
	case c.URL != "":
		for _, u := range strings.Split(c.URL, ",") {
			if problem := checkURL(strings.TrimSpace(u)); problem != "" {
				add("url", problem)
			}
		}
	}
	if !c.Embedded {
		if c.Listen != "" {
			add("listen", "only the embedded server listens: set embedded: true, or drop listen")
		}
		if c.DataDir != "" {
			add("dataDir", "only the embedded server has a data directory: set embedded: true, or drop dataDir")
		}
	} else if c.Credentials != "" {
		add("credentials", "the embedded server takes no credentials (with listen it makes a token of its own)")
	}
	if c.Listen != "" {
		if _, port, err := net.SplitHostPort(c.Listen); err != nil {
			add("listen", fmt.Sprintf("must be host:port, e.g. 127.0.0.1:4222, not %q", c.Listen))
		} else if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
			add("listen", fmt.Sprintf("the port must be a number from 0 to 65535, not %q", port))
		}
	}
	if !subjectPrefix.MatchString(c.Subject) {
		add("subject", fmt.Sprintf("must be subject tokens of [A-Za-z0-9_-] joined by dots, without wildcards, e.g. dsh, not %q", c.Subject))
	}
	if a := c.Audit; a != nil {
		if !streamName.MatchString(a.stream()) {
			add("audit.stream", fmt.Sprintf("must be a stream name of [A-Za-z0-9_-], e.g. DSH_AUDIT, not %q", a.Stream))
		}
		if a.MaxAge < 0 || (a.MaxAge > 0 && a.MaxAge < DuplicateWindow) {
			add("audit.maxAge", "must be 0 (keep every event) or at least 10m, the duplicate window")
		}
		if a.MaxBytes < 0 {
			add("audit.maxBytes", "must be 0 (no bound) or a positive number of bytes")
		}
		if a.Replicas < 0 || a.Replicas > 5 {
			add("audit.replicas", "must be from 1 to 5")
		}
	}
	for i, g := range c.Guards {
		if !slices.Contains(intents, g) {
			add(fmt.Sprintf("guards[%d]", i), fmt.Sprintf("%q is not an intent a remote guard can be asked about: fs/write-intent, fs/edit-intent, fs/remove-intent", g))
		}
	}
	wire.CheckKeys(c.Timeout, c.OnFailure, c.Queue, c.MaxArgumentBytes, add)
	if len(issues) > 0 {
		return &host.ConfigError{Plugin: "natsbus", Issues: issues}
	}
	return nil
}
