package wire

import (
	"fmt"
	"log/slog"
)

// ErrorName is the kind name of the errors a wire plugin causes, [Denied]
// and [Unavailable], reported by the tool registry as error.info.name.
const ErrorName = "PluginError"

// The codes of §1–§2.
const (
	// CodeDenied is a deny's code when the plugin gives none (or one that
	// is not [A-Z][A-Z0-9_]{1,63}).
	CodeDenied = "PLUGIN_DENIED"
	// CodeUnavailable is the code of every §2 failure under block.
	CodeUnavailable = "PLUGIN_UNAVAILABLE"
)

// Denied is a plugin's veto of an intent (§1): the tool's error result is
// `Error: <Message>` with {name: "PluginError", code: Code}, and nothing is
// written.
type Denied struct {
	// Plugin is the carrier entry's id.
	Plugin string
	// Message is the plugin's text, or `denied by plugin "<id>"` when it
	// gave none.
	Message string
	// Code is the plugin's code, or PLUGIN_DENIED.
	Code string
}

// NewDenied returns plugin's deny with message and code, defaulting an
// empty message and an invalid code as Denied says.
func NewDenied(plugin, message, code string) *Denied {
	if message == "" {
		message = fmt.Sprintf("denied by plugin %q", plugin)
	}
	if !ValidCode(code) {
		code = CodeDenied
	}
	return &Denied{Plugin: plugin, Message: message, Code: code}
}

// Error returns the plugin's message.
func (d *Denied) Error() string { return d.Message }

// ErrorName returns "PluginError".
func (d *Denied) ErrorName() string { return ErrorName }

// ErrorCode returns the deny's code.
func (d *Denied) ErrorCode() string { return d.Code }

// ValidCode reports whether code is a code a plugin may give:
// [A-Z][A-Z0-9_]{1,63}.
func ValidCode(code string) bool {
	if len(code) < 2 || len(code) > 64 || code[0] < 'A' || code[0] > 'Z' {
		return false
	}
	for i := 1; i < len(code); i++ {
		c := code[i]
		if !('A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// Unavailable is a §2 failure under block: the plugin could not answer (a
// timeout, a process that is down or restarting, a broken answer, no
// responder). Its message is `plugin "<id>" is unavailable: <cause>`, code
// PLUGIN_UNAVAILABLE; the call writes nothing.
type Unavailable struct {
	// Plugin is the carrier entry's id.
	Plugin string
	// Cause says why, e.g. `no answer within 2s`.
	Cause string
}

// Error returns `plugin "<id>" is unavailable: <cause>`.
func (u *Unavailable) Error() string {
	return fmt.Sprintf("plugin %q is unavailable: %s", u.Plugin, u.Cause)
}

// ErrorName returns "PluginError".
func (u *Unavailable) ErrorName() string { return ErrorName }

// ErrorCode returns "PLUGIN_UNAVAILABLE".
func (u *Unavailable) ErrorCode() string { return CodeUnavailable }

// BrokenAnswer is an answer of the wrong shape: not JSON, not the shape
// its request asks for, an unknown decision, a line over the carrier's
// bound. Its message is `broken answer: <problem>`.
type BrokenAnswer struct {
	Problem string
}

// Error returns `broken answer: <problem>`.
func (b *BrokenAnswer) Error() string { return "broken answer: " + b.Problem }

// OnFailure is an entry's §2 policy: what a failure to answer an intent
// does to the call.
type OnFailure string

const (
	// Block fails the call with *Unavailable and writes nothing (the
	// default).
	Block OnFailure = "block"
	// Allow goes on as if the plugin had answered next, with a warning in
	// the log.
	Allow OnFailure = "allow"
)

// Valid reports whether f is block or allow.
func (f OnFailure) Valid() bool { return f == Block || f == Allow }

// Fail applies f to plugin's failure to answer event: under block it
// returns the *Unavailable of cause; under allow it logs a warning and
// returns nil, so the chain goes on.
func (f OnFailure) Fail(log *slog.Logger, plugin, event, cause string) error {
	if f == Allow {
		log.Warn("plugin unavailable; the call goes on (onFailure: allow)", "event", event, "cause", cause)
		return nil
	}
	return &Unavailable{Plugin: plugin, Cause: cause}
}
