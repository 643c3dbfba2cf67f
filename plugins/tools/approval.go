package tools

import "context"

// Answer is the user's answer to one yes/no question asked through a
// conversation's approval channel (sandbox.md §4.3).
type Answer int

const (
	// Approved: the user accepted (MCP elicitation action "accept").
	Approved Answer = iota + 1
	// Declined: the user explicitly refused (action "decline").
	Declined
	// Cancelled: the user dismissed the question without choosing (action
	// "cancel").
	Cancelled
)

// String returns "approved", "declined" or "cancelled".
func (a Answer) String() string {
	switch a {
	case Approved:
		return "approved"
	case Declined:
		return "declined"
	case Cancelled:
		return "cancelled"
	}
	return "unknown"
}

// AskFunc asks the user of a conversation one yes/no question and waits for the
// answer, bounded by ctx (sandbox.md §4.3). It returns an error when the
// channel fails, ctx included; the answer is then meaningless.
//
// A front end may get the answer in a second round of the same call (MCP
// multi round-trip requests): the tool body then runs again from the start
// and its first run's result is discarded. A body that asks must therefore
// change nothing before it has the answer.
type AskFunc func(ctx context.Context, message string) (Answer, error)

// Ask returns the approval channel of the call's conversation, or nil when
// the call has no conversation or its conversation has no way to ask
// (dshhost call and run; an MCP client without the elicitation capability;
// a conversation named by its principal alone, conversations.md §3).
func (e *Exec) Ask() AskFunc {
	if e == nil || e.Conv == nil {
		return nil
	}
	return e.Conv.Ask
}
